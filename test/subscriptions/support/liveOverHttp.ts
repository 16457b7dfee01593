/**
 * Subscriptions over real sockets: the subgraph against the emulator's
 * realistic profile with its real budget (one dashboard query a minute, 429
 * beyond), the subgraph's governor at the real-host rate, and the tables,
 * deadlines and feeds' pulse on one FakeClock the test moves together with
 * the emulator's clock (as test/reporting/support/tablesOverHttp.ts). A proxy
 * in front of the emulator records every dashboard body and its status.
 */
import type { AddressInfo } from 'node:net';
import type { RunningEmulator } from '../../../emulator';
import { EMBEDDED_GOVERNOR_CONFIG, DEFAULT_ANALYTICS_CONFIG, METRICS_DEFAULTS, type Config } from '../../../src/config';
import { NO_OBSERVER } from '../../../src/kernel/observer';
import { Metrics } from '../../../src/observability/metrics/metrics';
import { TableRefreshes } from '../../../src/reporting/tables/refreshes';
import { MemoryTableStore, type TableStore } from '../../../src/reporting/tables/tableStore';
import type { BuiltServer, ServerDependencies, ServerOptions } from '../../../src/web/server';
import type { Services } from '../../../src/web/services';
import { buildTestServer } from '../../support/services';
import { startBodyRecorder, type BodyRecorder } from '../../support/bodyRecorder';
import { testConfig, type ConfigOverrides } from '../../support/config';
import { demoUpstreams } from '../../support/demoUpstreams';
import { DEFAULT_CACHE_TTLS, silentLogger } from '../../support/subgraph';
import { advanceClock, startSmallEmulator } from '../../support/subgraphHttp';
import { FakeClock } from '../../reporting/support/tablesFakes';
import type { CollectGarbage } from '../../../src/web/subscriptions/reclaimAfterFlood';

export interface LiveOverHttp {
  emulator: RunningEmulator;
  recorder: BodyRecorder;
  server: BuiltServer;
  graphqlUrl: string;
  wsUrl: string;
  clock: FakeClock;
  metrics: Metrics;
  /** The store the tables write through (watched): a test may write a table as a refresh would. */
  store: TableStore;
  /** The tables' "refreshed" events (every write of the store above). */
  refreshes: TableRefreshes;
  /** Moves the subgraph's clock and the emulator's by the same amount. */
  advanceBoth(ms: number): Promise<void>;
  /** Resolves once `count` whole tables were stored since the start (an event of the tables). */
  tablesStored(count: number): Promise<void>;
  close(): Promise<void>;
}

/** Tables fresh for 100 s: refreshed by demand from 50 s on (the feeds' pulse asks every 25 s). */
const LIVE_CACHE = { ...DEFAULT_CACHE_TTLS, dashboardTtlSeconds: 100 };
export const SLOT_MS = 63_000;

/**
 * Windows end on the hour (ANALYTICS_WINDOW_ALIGN_SECONDS=3600) and the clock starts 30 s before one, in the
 * emulator's past: the first table's window ends on one hour, a refresh after the first slot on the next, so
 * its numbers change (an hour of traffic), while any other read before that hour gives the same numbers.
 */
const HOUR_MS = 3_600_000;
const LIVE_ANALYTICS = { ...DEFAULT_ANALYTICS_CONFIG, windowAlignSeconds: 3_600 };

export interface LiveHarnessOptions {
  /**
   * The tables' store answers each read after a turn of the event loop, as
   * Redis answers over I/O: a loop of reads then yields (and shows as counts
   * a test can read) instead of freezing the test's own process.
   */
  tablesOverIo?: boolean;
}

export async function startLiveOverHttp(
  overrides: ConfigOverrides = {},
  deps: Pick<ServerDependencies, 'subscriptionGate'> & { logger?: Services['logger']; collectGarbage?: CollectGarbage } = {},
  serverOptions: ServerOptions = {},
  harness: LiveHarnessOptions = {},
): Promise<LiveOverHttp> {
  const clock = new FakeClock(Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 30_000);
  let stored = 0;
  const storedWatchers: { count: number; reached: () => void }[] = [];
  const emulator = await startSmallEmulator({ profile: 'realistic' });
  const recorder = await startBodyRecorder(emulator.url);
  const config: Config = testConfig({
    renderMaxConcurrency: 4,
    cache: LIVE_CACHE,
    analytics: LIVE_ANALYTICS,
    reportingMaxRows: 50,
    responseCacheEnabled: false,
    ...overrides,
  });
  const metrics = new Metrics({ ...METRICS_DEFAULTS, processMetrics: false });
  const upstreams = demoUpstreams({
    reportingBaseUrl: recorder.url,
    recommenderUrl: emulator.url,
    timeoutMs: 5_000,
    // The answer cache keeps answers as long as the tables (one DASHBOARD_CACHE_TTL_SECONDS, as in production); its events are series of `metrics`.
    protection: {
      now: () => clock.now(),
      cache: config.cache,
      governor: { ...EMBEDDED_GOVERNOR_CONFIG, reportingPerMinute: 1, queueTimeoutMs: 0 },
    },
    metrics,
  });
  const refreshes = new TableRefreshes();
  const memory = new MemoryTableStore();
  const tableStore = harness.tablesOverIo === true ? overIo(memory) : memory;
  const store = refreshes.watch(tableStore);
  const server = buildTestServer(
    config,
    {
      dashboard: upstreams.reporting,
      recommender: upstreams.recommender,
      logger: silentLogger,
      clock,
      metrics,
      tableStore,
      refreshes,
      // The tables' events, as the one observer hears them: a table fetched and stored.
      observer: {
        ...NO_OBSERVER,
        tableFetched: () => {
          stored += 1;
          for (const watcher of [...storedWatchers]) {
            if (stored < watcher.count) continue;
            storedWatchers.splice(storedWatchers.indexOf(watcher), 1);
            watcher.reached();
          }
        },
      },
      ...deps,
    },
    serverOptions,
  );
  await server.start();
  await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = server.httpServer.address() as AddressInfo;
  return {
    emulator,
    recorder,
    server,
    graphqlUrl: `http://127.0.0.1:${port}/graphql`,
    wsUrl: `ws://127.0.0.1:${port}/graphql`,
    clock,
    metrics,
    store,
    refreshes,
    async advanceBoth(ms) {
      await advanceClock(emulator, ms / 1000);
      await clock.advance(ms);
    },
    tablesStored(count) {
      if (stored >= count) return Promise.resolve();
      return new Promise((reached) => storedWatchers.push({ count, reached }));
    },
    async close() {
      await server.stop();
      await upstreams.close();
      await recorder.close();
      await emulator.close();
    },
  };
}

/** The store, each read answered after a turn of the event loop (see `tablesOverIo`). */
function overIo(store: TableStore): TableStore {
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  return {
    table: async (key) => {
      await turn();
      return store.table(key);
    },
    points: async (key, urls) => {
      await turn();
      return store.points(key, urls);
    },
    setTable: (table) => store.setTable(table),
    setPoints: (table) => store.setPoints(table),
  };
}
