/**
 * The whole subgraph over real HTTP against a real emulator, as `npm start`
 * wires it (createUpstreams → buildServer → listen), on ephemeral ports.
 */
import type { AddressInfo } from 'node:net';
import { DEMO_API_USER, type RunningEmulator } from '../../emulator';
import type { EmulatorOptions } from '../../emulator';
import type { Metrics } from '../../src/observability/metrics/metrics';
import type { Observer } from '../../src/kernel/observer';
import { Secret } from '../../src/redaction/secret';
import type { BuiltServer, ServerConfig } from '../../src/web/server';
import { createUpstreams, type Upstreams } from '../../src/upstream/upstreams';
import { upstreamOptions, type ProtectionOverrides } from './upstreamOptions';
import { call, startTestEmulator } from './emulator';
import { DEFAULT_CACHE_TTLS, silentLogger } from './subgraph';
import { testConfig } from './config';
import type { Services } from '../../src/web/services';
import { buildTestServer } from './services';

export interface RunningSubgraph {
  /** `http://127.0.0.1:port` (no path). */
  baseUrl: string;
  graphqlUrl: string;
  server: BuiltServer;
  upstreams: Upstreams;
  close(): Promise<void>;
}

export interface SubgraphOverEmulatorOptions {
  config?: Partial<ServerConfig>;
  timeoutMs?: number;
  /** Default: DEFAULT_PROTECTION (cache on, the emulator's default budgets). */
  protection?: ProtectionOverrides;
  /** Wired into the upstreams and the server (GET /metrics) as `npm start` does. */
  metrics?: Metrics;
  /** Hears the call path's events beside the metrics (a test's recorder). */
  observer?: Observer;
  /** The server's logger (tests that read its lines); default: silent. */
  logger?: Services['logger'];
}

/**
 * For tests about something other than the protection (error mapping, token
 * renewal, batching): no answer cache and a breaker that never opens, so every
 * call reaches the upstream and the emulator's counts are the datasource's.
 * Identical calls in flight at the same time are still coalesced.
 */
export const PASS_THROUGH: ProtectionOverrides = {
  cache: { renderTtlSeconds: 0, dashboardTtlSeconds: 0, staleIfErrorSeconds: 0 },
  breaker: { cooldownSeconds: 10, failureThreshold: Number.MAX_SAFE_INTEGER },
};

export async function startSubgraph(emulator: RunningEmulator, options: SubgraphOverEmulatorOptions = {}): Promise<RunningSubgraph> {
  const upstreams = createUpstreams(
    upstreamOptions({
      reportingBaseUrl: emulator.url,
      recommenderUrl: emulator.url,
      email: DEMO_API_USER.email,
      password: new Secret(DEMO_API_USER.password),
      timeoutMs: options.timeoutMs ?? 5_000,
      logger: silentLogger,
      ...(options.protection === undefined ? {} : { protection: options.protection }),
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
      ...(options.observer === undefined ? {} : { observer: options.observer }),
    }),
  );
  const server = buildTestServer(
    // The response cache would answer a repeated operation before the layers these tests exercise
    // (test/graphql/responseCache.test.ts turns it on).
    testConfig({ production: false, renderMaxConcurrency: 4, cache: DEFAULT_CACHE_TTLS, responseCacheEnabled: false, ...options.config }),
    {
      dashboard: upstreams.reporting,
      recommender: upstreams.recommender,
      logger: options.logger ?? silentLogger,
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    },
  );
  await server.start();
  await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = server.httpServer.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    graphqlUrl: `${baseUrl}/graphql`,
    server,
    upstreams,
    close: async () => {
      await server.stop();
      await upstreams.close();
    },
  };
}

/** A small emulator (scale 0.02) for the subgraph's integration tests. */
export function startSmallEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startTestEmulator({ scale: 0.02, ...options });
}

export interface UpstreamStats {
  signin: { count: number; distinct: number };
  dashboard: { count: number; distinct: number };
  render: { count: number; distinct: number };
}

export async function resetStats(emulator: RunningEmulator): Promise<void> {
  const response = await call(emulator, '/__emulator/stats', { method: 'DELETE' });
  if (response.status !== 204) throw new Error(`resetting stats answered ${response.status}`);
}

export async function readStats(emulator: RunningEmulator): Promise<UpstreamStats> {
  return (await call<UpstreamStats>(emulator, '/__emulator/stats')).body;
}

export async function addFault(emulator: RunningEmulator, fault: Record<string, unknown>): Promise<void> {
  const response = await call(emulator, '/__emulator/faults', { body: fault });
  if (response.status !== 201) throw new Error(`adding fault answered ${response.status}: ${JSON.stringify(response.body)}`);
}

export async function clearFaults(emulator: RunningEmulator): Promise<void> {
  await call(emulator, '/__emulator/faults', { method: 'DELETE' });
}

export async function advanceClock(emulator: RunningEmulator, seconds: number): Promise<void> {
  const response = await call(emulator, '/__emulator/clock', { body: { advanceSeconds: seconds } });
  if (response.status !== 200) throw new Error(`advancing the clock answered ${response.status}`);
}

export async function emulatorNow(emulator: RunningEmulator): Promise<Date> {
  return new Date((await call<{ now: string }>(emulator, '/__emulator/clock')).body.now);
}
