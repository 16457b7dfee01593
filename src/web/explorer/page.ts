/** Where the page asks for its files; each is one exact route (src/web/explorer/assets.ts). */
export const EXPLORER_ASSETS_PATH = '/explorer';

/**
 * Only this origin: scripts, styles, workers and GraphQL calls. Fonts and
 * icons are inlined in the stylesheet as data: URLs, so they need `data:`,
 * which is no request either. Monaco sets inline styles from script, hence
 * 'unsafe-inline' for styles only.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The page Apollo serves for a browser's GET /graphql. Its policy is a header
 * (landingPageHeaders in ./landingPage.ts), not a meta tag: a meta tag cannot
 * carry frame-ancestors.
 */
export function explorerPage(): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>GraphiQL · news-analytics-subgraph</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${EXPLORER_ASSETS_PATH}/explorer.css" />
  </head>
  <body>
    <div id="explorer"></div>
    <script src="${EXPLORER_ASSETS_PATH}/explorer.js"></script>
  </body>
</html>
`;
}
