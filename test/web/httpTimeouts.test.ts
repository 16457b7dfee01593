/**
 * node:http's connection timeouts: keep-alive above Apollo Router's 5 s pool
 * idle timeout, headers above keep-alive, and a socket that never sends a
 * byte is closed (well before Node's default 60 s).
 */
import { connect, type AddressInfo } from 'node:net';
import type { HttpTimeouts } from '../../src/config';
import type { BuiltServer } from '../../src/web/server';
import { DEFAULT_CACHE_TTLS, fakeReporting, fakeRecommender, silentLogger } from '../support/subgraph';
import { testConfig } from '../support/config';
import { buildTestServer } from '../support/services';

/** Apollo Router closes idle subgraph connections after this long (apollographql/router#3470). */
const APOLLO_ROUTER_POOL_IDLE_MS = 5_000;
const NODE_DEFAULT_HEADERS_TIMEOUT_MS = 60_000;

function build(httpTimeouts: Partial<HttpTimeouts> = {}): BuiltServer {
  const config = testConfig({ production: false, renderMaxConcurrency: 2, cache: DEFAULT_CACHE_TTLS });
  return buildTestServer(
    { ...config, httpTimeouts: { ...config.httpTimeouts, ...httpTimeouts } },
    { recommender: fakeRecommender(), dashboard: fakeReporting(), logger: silentLogger },
  );
}

describe('HTTP server timeouts', () => {
  it('keeps idle connections longer than a router does, and wants headers well before 60 s', () => {
    const { httpServer } = build();
    expect(httpServer.keepAliveTimeout).toBeGreaterThan(APOLLO_ROUTER_POOL_IDLE_MS);
    expect(httpServer.headersTimeout).toBeGreaterThan(httpServer.keepAliveTimeout);
    expect(httpServer.requestTimeout).toBeGreaterThanOrEqual(httpServer.headersTimeout);
    expect(httpServer.headersTimeout).toBeLessThanOrEqual(NODE_DEFAULT_HEADERS_TIMEOUT_MS / 2);
  });

  it('closes a socket that never sends a byte', async () => {
    const server = build({ keepAliveMs: 100, headersMs: 200, requestMs: 300, checkIntervalMs: 50 });
    await server.start();
    await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
    try {
      const socket = connect((server.httpServer.address() as AddressInfo).port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      await new Promise<void>((resolve) => socket.once('close', () => resolve()));
      expect(received).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await server.stop();
    }
  });

  it('refuses timeouts in the wrong order', () => {
    expect(() => build({ keepAliveMs: 20_000, headersMs: 10_000 })).toThrow(
      'HTTP timeouts must be keepAlive < headers <= request, got 20000, 10000, 30000 ms',
    );
  });
});
