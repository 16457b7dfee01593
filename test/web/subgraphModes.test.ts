/**
 * What differs between development and production, and the readiness states,
 * over real HTTP. Upstreams are recording fakes: nothing here reaches them.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHealthRoutes } from '../../src/web/health';
import type { BuiltServer, ServerConfig } from '../../src/web/server';
import { postGraphQL } from '../support/federationGateway';
import { DEFAULT_CACHE_TTLS, fakeReporting, fakeRecommender, silentLogger } from '../support/subgraph';
import { testConfig } from '../support/config';
import { buildTestServer } from '../support/services';

interface Listening {
  server: BuiltServer;
  baseUrl: string;
}

async function listen(config: Partial<ServerConfig>, start = true): Promise<Listening> {
  const server = buildTestServer(testConfig({ production: false, renderMaxConcurrency: 2, cache: DEFAULT_CACHE_TTLS, ...config }), {
    recommender: fakeRecommender(),
    dashboard: fakeReporting(),
    logger: silentLogger,
  });
  if (start) await server.start();
  await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
  return { server, baseUrl: `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}` };
}

const INTROSPECTION = '{ __schema { queryType { name } } }';

function landingPageRequest(baseUrl: string): Promise<Response> {
  return fetch(`${baseUrl}/graphql`, { headers: { accept: 'text/html' } });
}

describe('production mode', () => {
  let production: Listening;
  beforeAll(async () => {
    production = await listen({ production: true });
  });
  afterAll(async () => {
    await production?.server.stop();
  });

  it('refuses introspection', async () => {
    const response = await postGraphQL(`${production.baseUrl}/graphql`, INTROSPECTION);
    expect(response.data).toBeUndefined();
    expect(response.errors?.map((error) => error.extensions?.code)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(response.errors?.[0].message).toMatch(/introspection is not allowed/i);
  });

  it('serves no landing page', async () => {
    const response = await landingPageRequest(production.baseUrl);
    expect(response.headers.get('content-type') ?? '').not.toMatch(/text\/html/);
    expect(await response.text()).not.toMatch(/sandbox/i);
  });

  it('still serves _service for the router', async () => {
    const response = await postGraphQL<{ _service: { sdl: string } }>(`${production.baseUrl}/graphql`, '{ _service { sdl } }');
    expect(response.data?._service.sdl).toMatch(/type Article\s+@key\(fields: "url"\)/);
  });
});

describe('development mode', () => {
  let development: Listening;
  beforeAll(async () => {
    development = await listen({ production: false });
  });
  afterAll(async () => {
    await development?.server.stop();
  });

  it('allows introspection', async () => {
    const response = await postGraphQL<{ __schema: { queryType: { name: string } } }>(`${development.baseUrl}/graphql`, INTROSPECTION);
    expect(response.data?.__schema.queryType.name).toBe('Query');
  });

  it('serves the Sandbox landing page to browsers', async () => {
    const response = await landingPageRequest(development.baseUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toMatch(/sandbox/i);
  });
});

describe('readiness', () => {
  it('is 503 "starting" until Apollo has started, then 200 "ready"', async () => {
    const { server, baseUrl } = await listen({}, false);
    try {
      const before = await fetch(`${baseUrl}/health/ready`);
      expect(before.status).toBe(503);
      expect(await before.json()).toEqual({ status: 'starting' });
      expect((await fetch(`${baseUrl}/health/live`)).status).toBe(200);
      await server.start();
      const after = await fetch(`${baseUrl}/health/ready`);
      expect(after.status).toBe(200);
      expect(await after.json()).toEqual({ status: 'ready' });
    } finally {
      await server.stop();
    }
  });

  it('answers 503 "stopping" from the health routes once shutdown began', async () => {
    const ready = createHealthRoutes(() => 'stopping')['/health/ready'];
    const httpServer = createServer((request, response) => void ready(request, response));
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/health/ready`);
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ status: 'stopping' });
    } finally {
      await new Promise((resolve) => httpServer.close(resolve));
    }
  });

  it('turns to stopping at stop(), finishes in-flight requests, then stops listening', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started!: () => void;
    const renderStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const recommender = fakeRecommender(async () => {
      started();
      await held;
      return [];
    });
    const server = buildTestServer(testConfig({ production: false, renderMaxConcurrency: 1, cache: DEFAULT_CACHE_TTLS }), {
      recommender,
      dashboard: fakeReporting(),
      logger: silentLogger,
    });
    await server.start();
    await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}`;

    const inFlight = postGraphQL<{ recommendations: unknown[] }>(
      `${baseUrl}/graphql`,
      '{ recommendations(experienceId: "IL_1", domain: "d.example") { url } }',
    );
    await renderStarted;
    const stopping = server.stop();
    expect(server.lifecycle()).toBe('stopping');
    release();
    // The request that was in flight when stop() began still completes.
    expect((await inFlight).data).toEqual({ recommendations: [] });
    await stopping;
    await expect(fetch(`${baseUrl}/health/live`)).rejects.toThrow();
  });
});
