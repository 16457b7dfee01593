/**
 * Our subgraph as src/index.ts runs it against a remote upstream, assembled
 * from the same exported building blocks, but on 127.0.0.1 and a free port
 * and against the given upstream (the test's emulator).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO_API_USER } from '../../emulator';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/observability/logger';
import { createUpstreams, type Upstreams } from '../../src/upstream/upstreams';
import { upstreamOptions } from './upstreamOptions';
import { buildTestServer } from './services';

export interface RunningAnalyticsSubgraph {
  /** The GraphQL endpoint, `http://127.0.0.1:<port>/graphql`. */
  url: string;
  upstreams: Upstreams;
  close(): Promise<void>;
}

/** `env` adds to (or overrides) the configuration below. */
export async function startAnalyticsSubgraph(upstreamUrl: string, env: NodeJS.ProcessEnv = {}): Promise<RunningAnalyticsSubgraph> {
  // Through loadConfig, so the test runs the configuration path production uses.
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'silent',
    // No load balancer to wait for on stop().
    SHUTDOWN_DELAY_SECONDS: '0',
    REPORTING_BASE_URL: upstreamUrl,
    RECOMMENDER_URL: upstreamUrl,
    REPORTING_EMAIL: DEMO_API_USER.email,
    REPORTING_PASSWORD: DEMO_API_USER.password,
    // Remote mode assumes the real hosts' budgets; the test's emulator has its (far larger) defaults.
    REPORTING_RATE_PER_MINUTE: '600',
    SIGNIN_RATE_PER_MINUTE: '20',
    RENDER_RATE_PER_MINUTE: '6000',
    ...env,
  });
  if (config.upstream.mode !== 'remote') throw new Error('expected a remote upstream configuration');
  const logger = createLogger(config);
  const { reportingBaseUrl, recommenderUrl, email, password } = config.upstream;
  const upstreams = createUpstreams(
    upstreamOptions({
      reportingBaseUrl,
      recommenderUrl,
      email,
      password,
      timeoutMs: config.upstreamTimeoutMs,
      logger,
      protection: { cache: config.cache, governor: config.governor, breaker: config.breaker },
    }),
  );
  const server = buildTestServer(config, { dashboard: upstreams.reporting, recommender: upstreams.recommender, logger });
  await server.start();
  const port = await listenOnFreePort(server.httpServer);
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    upstreams,
    async close() {
      await server.stop();
      await upstreams.close();
    },
  };
}

function listenOnFreePort(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
