/**
 * The Apollo Client 4 snippet of docs/subscriptions.md, run as written in
 * Debian's Chromium (puppeteer-core): the ```tsx block is taken from the page,
 * bundled with esbuild beside the client GraphQL Code Generator makes
 * (test/support/frontendCodegen.ts), and mounted in a page against a subgraph
 * with CALLER_AUTH=jwt. With a good token the wall shows the ranking; with a
 * refused one it shows the 4403 at once, after one socket (no retry).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import { AUDIENCE, callerAuth, ISSUER, serveJwks, signingKey, signToken, type JwksServer, type SigningKey } from '../security/support';
import { chromiumAvailable, launchChromium, type RunningBrowser } from '../support/browser';
import { generateFrontendClient } from '../support/frontendCodegen';
import { startLiveOverHttp, type LiveOverHttp } from '../subscriptions/support/liveOverHttp';

const describeWithChromium = chromiumAvailable() ? describe : describe.skip;
const REPO_ROOT = path.resolve(__dirname, '..', '..');
const PAGE_TIMEOUT_MS = 20_000;

/** The one checked ```tsx block of docs/subscriptions.md: the Apollo Client 4 snippet. */
function clientSnippet(): string {
  const markdown = readFileSync(path.join(REPO_ROOT, 'docs', 'subscriptions.md'), 'utf8');
  const blocks = [...markdown.matchAll(/^<!-- checked -->\n```tsx\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
  if (blocks.length !== 1) throw new Error(`expected one checked tsx block in docs/subscriptions.md, found ${blocks.length}`);
  return blocks[0];
}

/** The page's entry: the snippet's client and component, mounted with the token and URL the test gives. */
const ENTRY = `
import { ApolloProvider } from '@apollo/client/react';
import { createRoot } from 'react-dom/client';
import { createAnalyticsClient, TopTen } from './snippet';

const params = new URLSearchParams(window.location.search);
const client = createAnalyticsClient(async () => params.get('token') ?? '', params.get('url') ?? '');
createRoot(document.getElementById('root')!).render(<ApolloProvider client={client}><TopTen /></ApolloProvider>);
`;

describeWithChromium('the Apollo Client 4 snippet in chromium, against a jwt subgraph', () => {
  let workDir: string;
  let key: SigningKey;
  let jwks: JwksServer;
  let live: LiveOverHttp;
  let chromium: RunningBrowser;
  let pages: Server;
  let pageUrl: string;

  beforeAll(async () => {
    mkdirSync(path.join(REPO_ROOT, 'test-output'), { recursive: true });
    workDir = mkdtempSync(path.join(REPO_ROOT, 'test-output', 'apollo-client-'));
    await generateFrontendClient(workDir);
    writeFileSync(path.join(workDir, 'snippet.tsx'), clientSnippet());
    writeFileSync(path.join(workDir, 'entry.tsx'), ENTRY);
    const bundle = await build({
      entryPoints: [path.join(workDir, 'entry.tsx')],
      bundle: true,
      write: false,
      format: 'iife',
      jsx: 'automatic',
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'silent',
    });
    const script = bundle.outputFiles[0].text;
    pages = createServer((request, response) => {
      if ((request.url ?? '').startsWith('/app.js')) {
        response.writeHead(200, { 'content-type': 'text/javascript' });
        response.end(script);
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><html><body><div id="root"></div><script src="/app.js"></script></body></html>');
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}/`;

    key = await signingKey('key-1');
    jwks = await serveJwks([key]);
    live = await startLiveOverHttp({ callerAuth: callerAuth(['jwt'], { jwks: { url: jwks.url }, issuer: ISSUER, audience: AUDIENCE }) });
    chromium = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await live?.close();
    await jwks?.close();
    pages?.closeAllConnections();
    await new Promise<void>((resolve) => (pages === undefined ? resolve() : pages.close(() => resolve())));
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  async function open(token: string): Promise<{ sockets: string[]; page: Awaited<ReturnType<RunningBrowser['browser']['newPage']>> }> {
    const page = await chromium.browser.newPage();
    const sockets: string[] = [];
    const cdp = await page.createCDPSession();
    await cdp.send('Network.enable');
    cdp.on('Network.webSocketCreated', (event: { url: string }) => sockets.push(event.url));
    const query = new URLSearchParams({ token, url: live.graphqlUrl });
    await page.goto(`${pageUrl}?${query}`, { waitUntil: 'load', timeout: PAGE_TIMEOUT_MS });
    return { sockets, page };
  }

  it('shows the live ranking for a caller whose token carries reporting:read', async () => {
    const { page, sockets } = await open(await signToken(key, { claims: { scope: 'reporting:read' } }));
    await page.waitForSelector('li', { timeout: PAGE_TIMEOUT_MS });
    const items = (await page.evaluate(`[...document.querySelectorAll('li')].map((li) => li.textContent)`)) as string[];
    expect(items.length).toBeGreaterThan(0);
    expect(items[0]).toMatch(/^https?:\/\/\S+: \d+$/);
    expect(sockets).toEqual([live.wsUrl]);
  }, 60_000);

  it('shows a refused token (4403) at once, after one socket: graphql-ws does not retry it', async () => {
    const stranger = await signingKey('not-in-the-jwks');
    const { page, sockets } = await open(await signToken(stranger, { claims: { scope: 'reporting:read' } }));
    await page.waitForSelector('[role="alert"]', { timeout: PAGE_TIMEOUT_MS });
    const shown = (await page.evaluate(`document.querySelector('[role="alert"]').textContent`)) as string;
    expect(shown).toContain('4403');
    expect(sockets).toEqual([live.wsUrl]);
  }, 60_000);
});
