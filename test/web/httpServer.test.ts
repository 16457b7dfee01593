/**
 * The HTTP layer around Apollo (node:http, no framework) over real HTTP:
 * CORS, body handling, header pass-through, routes. Upstreams are recording
 * fakes.
 */
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { HeaderMap } from '@apollo/server';
import type { BuiltServer, ServerConfig, ServerOptions } from '../../src/web/server';
import { APOLLO_SANDBOX_ORIGIN } from '../../src/web/cors';
import { DEFAULT_CACHE_TTLS, fakeReporting, fakeRecommender, silentLogger } from '../support/subgraph';
import { testConfig } from '../support/config';
import { buildTestServer } from '../support/services';

interface Listening {
  server: BuiltServer;
  graphqlUrl: string;
  baseUrl: string;
}

const running: Listening[] = [];

async function listen(config: Partial<ServerConfig> = {}, options: ServerOptions = {}): Promise<Listening> {
  const server = buildTestServer(
    testConfig({ production: false, renderMaxConcurrency: 2, cache: DEFAULT_CACHE_TTLS, ...config }),
    { recommender: fakeRecommender(), dashboard: fakeReporting(), logger: silentLogger },
    options,
  );
  await server.start();
  await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}`;
  const listening = { server, baseUrl, graphqlUrl: `${baseUrl}/graphql` };
  running.push(listening);
  return listening;
}

afterAll(async () => {
  for (const { server } of running) await server.stop();
});

const QUERY = '{ recommendations(experienceId: "IL_1", domain: "d.example") { url } }';

function post(url: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

function preflight(url: string, origin: string): Promise<Response> {
  return fetch(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,apollo-require-preflight' },
  });
}

describe('CORS in development', () => {
  let dev: Listening;
  beforeAll(async () => {
    dev = await listen({ production: false });
  });

  it('answers the hosted Sandbox preflight with its origin, POST and the requested headers', async () => {
    const response = await preflight(dev.graphqlUrl, APOLLO_SANDBOX_ORIGIN);

    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(APOLLO_SANDBOX_ORIGIN);
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    expect(response.headers.get('access-control-allow-headers')).toBe('content-type,apollo-require-preflight');
    expect(response.headers.get('vary')).toMatch(/origin/i);
  });

  it('lets the Sandbox run an operation', async () => {
    const response = await post(dev.graphqlUrl, JSON.stringify({ query: QUERY }), { origin: APOLLO_SANDBOX_ORIGIN });

    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(APOLLO_SANDBOX_ORIGIN);
    expect(((await response.json()) as { data: { recommendations: unknown[] } }).data.recommendations).toHaveLength(3);
  });

  it('adds no CORS headers to a request without Origin (a router, a server)', async () => {
    const response = await post(dev.graphqlUrl, JSON.stringify({ query: QUERY }));

    expect(response.status).toBe(200);
    expect([...response.headers.keys()].filter((name) => name.startsWith('access-control-') || name === 'vary')).toEqual([]);
  });

  it('gives any other origin no Access-Control-Allow-Origin', async () => {
    const response = await preflight(dev.graphqlUrl, 'https://evil.example');

    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS in production', () => {
  let prod: Listening;
  beforeAll(async () => {
    prod = await listen({ production: true, corsOrigins: ['https://app.example.com'] });
  });

  it('admits the configured origins', async () => {
    const response = await preflight(prod.graphqlUrl, 'https://app.example.com');

    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  });

  it('does not admit the hosted Sandbox', async () => {
    const preflighted = await preflight(prod.graphqlUrl, APOLLO_SANDBOX_ORIGIN);
    const posted = await post(prod.graphqlUrl, JSON.stringify({ query: QUERY }), { origin: APOLLO_SANDBOX_ORIGIN });

    expect(preflighted.headers.get('access-control-allow-origin')).toBeNull();
    expect(posted.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('requests and responses', () => {
  let dev: Listening;
  beforeAll(async () => {
    dev = await listen();
  });

  it('sends exactly the headers Apollo computed (cache-control included), with a length and no ETag', async () => {
    const body = { query: QUERY };
    const expected = await dev.server.apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'POST', headers: new HeaderMap([['content-type', 'application/json']]), search: '', body },
      context: async () => dev.server.createContext(),
    });

    const response = await post(dev.graphqlUrl, JSON.stringify(body));

    expect([...expected.headers.keys()]).toContain('cache-control');
    for (const [name, value] of expected.headers) expect(response.headers.get(name)).toBe(value);
    expect(response.headers.get('etag')).toBeNull();
    expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(await response.text()));
  });

  it('reads a gzip-compressed body', async () => {
    const response = await post(dev.graphqlUrl, gzipSync(JSON.stringify({ query: QUERY })), { 'content-encoding': 'gzip' });

    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: { recommendations: unknown[] } }).data.recommendations).toHaveLength(3);
  });

  it('refuses a body over 1 MiB with a JSON 413', async () => {
    const response = await post(dev.graphqlUrl, JSON.stringify({ query: QUERY, padding: 'x'.repeat(1024 * 1024) }));

    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      errors: [{ message: expect.stringContaining('larger than'), extensions: { code: 'BAD_REQUEST' } }],
    });
  });

  it('refuses a compressed body that inflates past the limit', async () => {
    const bomb = gzipSync(JSON.stringify({ query: QUERY, padding: 'x'.repeat(2 * 1024 * 1024) }));

    const response = await post(dev.graphqlUrl, bomb, { 'content-encoding': 'gzip' });

    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(response.status).toBe(413);
  });

  it('answers a corrupt compressed body with a JSON 400 and closes the connection (its unread bytes must not meet the next request)', async () => {
    const corrupt = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), Buffer.alloc(256 * 1024, 0xff)]);
    const response = await post(dev.graphqlUrl, corrupt, { 'content-encoding': 'gzip' });

    expect(response.status).toBe(400);
    expect(((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(response.headers.get('connection')).toBe('close');
  });

  it('refuses a charset other than UTF-8 and an unknown encoding with a JSON 415', async () => {
    const latin1 = await post(dev.graphqlUrl, JSON.stringify({ query: QUERY }), { 'content-type': 'application/json; charset=latin1' });
    const zip = await post(dev.graphqlUrl, JSON.stringify({ query: QUERY }), { 'content-encoding': 'zip' });

    for (const response of [latin1, zip]) {
      expect(response.status).toBe(415);
      expect(((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe('BAD_REQUEST');
    }
  });

  it('refuses a body that is not valid UTF-8 with a JSON 400 naming the problem, instead of repairing it', async () => {
    const text = JSON.stringify({ query: '{ __typename }', variables: { note: 'caf\u00e9' } });
    // "é" as Latin-1 (0xE9): a lone byte that is not UTF-8, which a lenient decoder turns into U+FFFD.
    const latin1 = Buffer.from(text, 'latin1');

    for (const body of [latin1, gzipSync(latin1)]) {
      const response = await post(dev.graphqlUrl, body, body === latin1 ? {} : { 'content-encoding': 'gzip' });

      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        errors: [{ message: expect.stringContaining('not valid UTF-8'), extensions: { code: 'BAD_REQUEST' } }],
      });
    }
  });

  it('keeps CSRF prevention: a GET without a preflight-forcing header is refused', async () => {
    const response = await fetch(`${dev.graphqlUrl}?query=${encodeURIComponent('{ __typename }')}`);

    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/CSRF/);
  });

  it('serves GET operations that carry apollo-require-preflight, also on /graphql/', async () => {
    const response = await fetch(`${dev.graphqlUrl}/?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('answers a POST to a health check with a JSON 405', async () => {
    const response = await fetch(`${dev.baseUrl}/health/live`, { method: 'POST' });

    expect(response.status).toBe(405);
    expect(((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe(
      'METHOD_NOT_ALLOWED',
    );
  });
});

describe('extra routes', () => {
  it('serves a registered route beside /graphql', async () => {
    const { baseUrl, graphqlUrl } = await listen(
      {},
      { extraRoutes: { '/metrics': (_request, response) => void response.writeHead(200, { 'content-type': 'text/plain' }).end('up 1\n') } },
    );

    const metrics = await fetch(`${baseUrl}/metrics?x=1`);
    const graphql = await post(graphqlUrl, JSON.stringify({ query: '{ __typename }' }));

    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toBe('up 1\n');
    expect(graphql.status).toBe(200);
  });

  it('refuses a path that is already served', () => {
    const build = (path: string) =>
      buildTestServer(
        testConfig({ production: false, renderMaxConcurrency: 1, cache: DEFAULT_CACHE_TTLS }),
        { recommender: fakeRecommender(), dashboard: fakeReporting(), logger: silentLogger },
        { extraRoutes: { [path]: () => undefined } },
      );

    expect(() => build('/graphql')).toThrow('route /graphql is already served');
    expect(() => build('/health/ready')).toThrow('route /health/ready is already served');
  });

  it('turns a throwing route into a JSON 500', async () => {
    const { baseUrl } = await listen(
      {},
      {
        extraRoutes: {
          '/boom': () => {
            throw new Error('route bug');
          },
        },
      },
    );

    const response = await fetch(`${baseUrl}/boom`);

    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
    });
  });
});
