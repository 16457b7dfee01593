/**
 * CORS in a real browser (Debian's chromium): a page on another loopback
 * origin listed in CORS_ORIGINS queries /graphql (preflight included); a page
 * on an origin not listed is refused by the browser. Nothing else is reachable.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'puppeteer-core';
import type { RunningEmulator } from '../../emulator';
import { chromiumAvailable, cutOffNetwork, launchChromium, type RunningBrowser } from '../support/browser';
import { startSmallEmulator, startSubgraph, type RunningSubgraph } from '../support/subgraphHttp';

const describeWithChromium = chromiumAvailable() ? describe : describe.skip;
const PAGE_TIMEOUT_MS = 15_000;

interface AppOrigin {
  origin: string;
  close(): Promise<void>;
}

/** A front-end's origin: a blank page on its own loopback port. */
async function startAppOrigin(): Promise<AppOrigin> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><html><head><link rel="icon" href="data:,"></head><body>app</body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Runs the query with fetch from the page, as a front-end would: JSON POST, so the browser preflights it. */
function queryFromPage(page: Page, graphqlUrl: string): Promise<{ ok: true; body: unknown } | { ok: false; error: string }> {
  return page.evaluate(async (url: string) => {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      return { ok: true as const, body: (await response.json()) as unknown };
    } catch (error) {
      return { ok: false as const, error: String(error) };
    }
  }, graphqlUrl);
}

describeWithChromium('CORS in chromium', () => {
  let emulator: RunningEmulator;
  let subgraph: RunningSubgraph;
  let chromium: RunningBrowser;
  let allowed: AppOrigin;
  let other: AppOrigin;

  beforeAll(async () => {
    [allowed, other] = await Promise.all([startAppOrigin(), startAppOrigin()]);
    emulator = await startSmallEmulator();
    subgraph = await startSubgraph(emulator, { config: { corsOrigins: [allowed.origin] } });
    chromium = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await chromium?.close();
    await subgraph?.close();
    await emulator?.close();
    await allowed?.close();
    await other?.close();
  });

  async function pageOn(origin: string): Promise<{ page: Page; refused: string[] }> {
    const page = await chromium.browser.newPage();
    const refused = await cutOffNetwork(page, [allowed.origin, other.origin, new URL(subgraph.baseUrl).origin]);
    await page.goto(`${origin}/`, { timeout: PAGE_TIMEOUT_MS });
    return { page, refused };
  }

  it('lets a page on an origin in CORS_ORIGINS query /graphql', async () => {
    const { page, refused } = await pageOn(allowed.origin);

    expect(await queryFromPage(page, subgraph.graphqlUrl)).toEqual({ ok: true, body: { data: { __typename: 'Query' } } });
    expect(refused).toEqual([]);
  });

  it('refuses a page on any other origin: the browser gets no answer it may read', async () => {
    const { page, refused } = await pageOn(other.origin);

    const result = await queryFromPage(page, subgraph.graphqlUrl);

    expect(result).toEqual({ ok: false, error: 'TypeError: Failed to fetch' });
    expect(refused).toEqual([]);
    // The server's side of it: no Access-Control-Allow-Origin for that origin.
    const preflight = await fetch(subgraph.graphqlUrl, {
      method: 'OPTIONS',
      headers: { origin: other.origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});
