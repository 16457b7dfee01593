/**
 * Apollo's Sandbox page loads everything from Apollo's CDN; offline it shows
 * only its own fallback ("Apollo Sandbox cannot be loaded; it appears that you
 * might be offline."), which the Sandbox's frame covers once it loads. Our
 * hint goes inside that fallback, as plain inline HTML: it needs nothing from
 * another host, and it is seen exactly when the Sandbox is not.
 */
const OFFLINE_HINT = `<p>Without internet, start the subgraph with <code>LANDING_PAGE=offline</code>: it serves the explorer bundled in the package (GraphiQL), nothing loaded from another host. See docs/explorer.md.</p>`;

/** Apollo's fallback block; its closing tag is where the hint goes. */
const FALLBACK = /(<div class="fallback">[\s\S]*?)(<\/div>)/;

/**
 * The Sandbox page with the hint in its offline fallback. A page without that
 * block (another Apollo version) is served unchanged: test/web/explorer.test.ts
 * and browserExplorer.test.ts fail then, not the subgraph's start.
 */
export function withOfflineHint(sandboxHtml: string): string {
  return sandboxHtml.replace(FALLBACK, `$1  ${OFFLINE_HINT}\n$2`);
}
