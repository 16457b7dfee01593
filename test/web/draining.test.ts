/**
 * Draining over real HTTP: once stop() begins (SIGTERM), /health/ready
 * answers 503 at once while GraphQL keeps serving for the shutdown delay, so
 * load balancers and Kubernetes move traffic away before the listener closes.
 */
import type { AddressInfo } from 'node:net';
import type { BuiltServer } from '../../src/web/server';
import { testConfig } from '../support/config';
import { deferred } from '../support/deferred';
import { DEFAULT_CACHE_TTLS, fakeReporting, fakeRecommender, silentLogger } from '../support/subgraph';
import { buildTestServer } from '../support/services';

const CONFIG = testConfig({ production: false, renderMaxConcurrency: 2, cache: DEFAULT_CACHE_TTLS });
const QUERY = JSON.stringify({ query: '{ recommendations(experienceId: "IL_1", domain: "d.example") { url } }' });

async function listening(server: BuiltServer): Promise<string> {
  await server.start();
  await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}`;
}

function postQuery(baseUrl: string): Promise<Response> {
  return fetch(`${baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: QUERY });
}

describe('draining on stop', () => {
  it('answers 503 on /health/ready at once, keeps serving GraphQL during the delay, then closes the listener', async () => {
    const delayEnds = deferred<void>();
    const delays: number[] = [];
    // A plain object (not a literal in the call) so this test also runs against servers without these options.
    const options = {
      sleep: (ms: number) => {
        delays.push(ms);
        return delayEnds.promise;
      },
    };
    const server = buildTestServer(
      { ...CONFIG, shutdownDelaySeconds: 5 },
      { recommender: fakeRecommender(), dashboard: fakeReporting(), logger: silentLogger },
      options,
    );
    const baseUrl = await listening(server);
    expect((await fetch(`${baseUrl}/health/ready`)).status).toBe(200);

    const stopped = server.stop();
    const ready = await fetch(`${baseUrl}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'stopping' });

    const during = await postQuery(baseUrl);
    expect(during.status).toBe(200);
    expect(await during.json()).toEqual({
      data: { recommendations: [1, 2, 3].map((rank) => ({ url: `https://news.example/IL_1/${rank}` })) },
    });
    // Keep-alive clients are told to reconnect (elsewhere) rather than keep a connection the close would cut.
    expect(during.headers.get('connection')).toBe('close');
    expect(delays).toEqual([5_000]);

    delayEnds.resolve();
    await stopped;
    await expect(fetch(`${baseUrl}/health/live`)).rejects.toThrow();
  });

  it('stops at once without a delay', async () => {
    const server = buildTestServer(CONFIG, { recommender: fakeRecommender(), dashboard: fakeReporting(), logger: silentLogger });
    const baseUrl = await listening(server);
    await server.stop();
    await expect(fetch(`${baseUrl}/health/live`)).rejects.toThrow();
  });
});

describe('/health/ready details', () => {
  it('shows each named status provider (e.g. a sign-in backoff) and stays 200', async () => {
    const deps = {
      recommender: fakeRecommender(),
      dashboard: fakeReporting(),
      logger: silentLogger,
      redisMode: () => 'degraded',
      readinessDetails: { signIn: () => ({ state: 'backing_off', retryAfterSeconds: 60 }) },
    };
    const server = buildTestServer(CONFIG, deps);
    const baseUrl = await listening(server);
    try {
      const ready = await fetch(`${baseUrl}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready', redis: 'degraded', signIn: { state: 'backing_off', retryAfterSeconds: 60 } });
    } finally {
      await server.stop();
    }
  });
});
