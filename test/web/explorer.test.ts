/**
 * LANDING_PAGE over HTTP: which page a browser's GET /graphql gets, and the
 * offline explorer's files and policy. test/web/browserExplorer.test.ts runs
 * the page itself in chromium.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultLandingPage, type LandingPage } from '../../src/config';
import { explorerAssetRoutes, explorerDirFor } from '../../src/web/explorer/assets';
import type { BuiltServer } from '../../src/web/server';
import { ensureExplorerBuilt } from '../support/browser';
import { testConfig } from '../support/config';
import { fakeRecommender, fakeReporting, silentLogger } from '../support/subgraph';
import { buildTestServer } from '../support/services';

interface Listening {
  server: BuiltServer;
  baseUrl: string;
}

async function listen(config: { production: boolean; landingPage?: LandingPage }): Promise<Listening> {
  const server = buildTestServer(
    testConfig({
      renderMaxConcurrency: 2,
      production: config.production,
      landingPage: config.landingPage ?? defaultLandingPage(config.production),
    }),
    { recommender: fakeRecommender(), dashboard: fakeReporting(), logger: silentLogger },
  );
  await server.start();
  await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}` };
}

function browserGet(url: string): Promise<Response> {
  return fetch(url, { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
}

describe('LANDING_PAGE=offline', () => {
  let offline: Listening;
  beforeAll(async () => {
    ensureExplorerBuilt();
    offline = await listen({ production: false, landingPage: 'offline' });
  });
  afterAll(async () => {
    await offline?.server.stop();
  });

  it('serves the bundled explorer to browsers, with a policy that admits only this origin', async () => {
    const response = await browserGet(`${offline.baseUrl}/graphql`);
    const html = await response.text();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toContain('<script src="/explorer/explorer.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="/explorer/explorer.css" />');
    const policy = response.headers.get('content-security-policy');
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("connect-src 'self';");
    expect(policy).toContain("worker-src 'self';");
    // Nothing in the page names another host: no CDN, no web fonts.
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/sandbox/i);
  });

  it('cannot be framed by another page: the policy is a header with frame-ancestors, and X-Frame-Options says DENY', async () => {
    const response = await browserGet(`${offline.baseUrl}/graphql`);

    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });

  it.each([
    ['/explorer/explorer.js', 'text/javascript'],
    ['/explorer/explorer.css', 'text/css'],
    ['/explorer/editor.worker.js', 'text/javascript'],
    ['/explorer/json.worker.js', 'text/javascript'],
    ['/explorer/graphql.worker.js', 'text/javascript'],
  ])('serves %s as %s, with the same policy', async (assetPath, type) => {
    const response = await fetch(`${offline.baseUrl}${assetPath}`);
    const body = await response.arrayBuffer();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(new RegExp(`^${type}`));
    expect(Number(response.headers.get('content-length'))).toBe(body.byteLength);
    expect(body.byteLength).toBeGreaterThan(1000);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it('answers a write to an asset with 405 naming GET, and an unknown asset with 404', async () => {
    const written = await fetch(`${offline.baseUrl}/explorer/explorer.js`, { method: 'POST', body: 'x' });
    const unknown = await fetch(`${offline.baseUrl}/explorer/other.js`);

    expect(written.status).toBe(405);
    expect(((await written.json()) as { errors: { message: string }[] }).errors[0]!.message).toMatch(/use GET/);
    expect(unknown.status).toBe(404);
  });

  it('still answers GraphQL at /graphql', async () => {
    const response = await fetch(`${offline.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });

    expect(await response.json()).toEqual({ data: { __typename: 'Query' } });
  });
});

describe.each([
  ['development', false, /sandbox/i, 200],
  ['production', true, null, 400],
] as const)('the default landing page in %s', (_mode, production, page, status) => {
  let server: Listening;
  beforeAll(async () => {
    server = await listen({ production });
  });
  afterAll(async () => {
    await server?.server.stop();
  });

  it('is unchanged: the Sandbox in development, none in production; no explorer files', async () => {
    const response = await browserGet(`${server.baseUrl}/graphql`);
    const text = await response.text();

    expect(response.status).toBe(status);
    if (page === null) expect(response.headers.get('content-type') ?? '').not.toMatch(/text\/html/);
    else expect(text).toMatch(page);
    expect((await fetch(`${server.baseUrl}/explorer/explorer.js`)).status).toBe(404);
  });

  if (page !== null) {
    it("tells, in the Sandbox's own offline notice, how to get the bundled explorer (nothing from another host)", async () => {
      const html = await (await browserGet(`${server.baseUrl}/graphql`)).text();
      const fallback = /<div class="fallback">([\s\S]*?)<\/div>/.exec(html)?.[1] ?? '';

      expect(fallback).toContain('Apollo Sandbox cannot be loaded');
      expect(fallback).toMatch(/<code>LANDING_PAGE=offline<\/code>/);
      expect(fallback).not.toMatch(/https?:\/\/|<img|<link|<script/);
    });

    it('cannot be framed by another page either', async () => {
      const response = await browserGet(`${server.baseUrl}/graphql`);

      expect(response.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
      expect(response.headers.get('x-frame-options')).toBe('DENY');
    });
  }
});

describe('LANDING_PAGE=none in development', () => {
  it('serves no page', async () => {
    const none = await listen({ production: false, landingPage: 'none' });
    try {
      const response = await browserGet(`${none.baseUrl}/graphql`);
      expect(response.headers.get('content-type') ?? '').not.toMatch(/text\/html/);
      expect(await response.text()).not.toMatch(/sandbox|graphiql/i);
    } finally {
      await none.server.stop();
    }
  });
});

describe('the explorer build', () => {
  it('is found beside schema/: dist/explorer from src/ (tsx, jest) and from dist/src/ (npm start)', () => {
    expect(explorerDirFor('/app/src')).toBe(path.join('/app', 'dist', 'explorer'));
    expect(explorerDirFor('/app/dist/src')).toBe(path.join('/app', 'dist', 'explorer'));
  });

  it('missing is a start-up error that says how to build it', () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'explorer-missing-'));
    try {
      expect(() => explorerAssetRoutes(empty)).toThrow(
        `LANDING_PAGE=offline needs the bundled explorer, but ${path.join(empty, 'explorer.js')} is missing: run npm run build`,
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
