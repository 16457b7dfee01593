/**
 * The analytics tables over real HTTP against the emulator's realistic
 * profile with its real budget (one dashboard query a minute, 429 beyond),
 * on an injected clock: the subgraph's governor at the real-host rate (one a
 * minute, refused at once rather than queued), its tables, deadlines and
 * cache hints all on one FakeClock, which the test moves together with the
 * emulator's clock. A proxy in front of the emulator records every
 * dashboard body it receives and the status it answered.
 */
import { NO_OBSERVER } from '../../../src/kernel/observer';
import type { AddressInfo } from 'node:net';
import type { RunningEmulator } from '../../../emulator';
import { EMBEDDED_GOVERNOR_CONFIG, type AnalyticsConfig } from '../../../src/config';
import { startBodyRecorder, type BodyRecorder } from '../../support/bodyRecorder';
import { testConfig } from '../../support/config';
import { apiToken } from '../../support/emulator';
import { silentLogger, type DEFAULT_CACHE_TTLS } from '../../support/subgraph';
import { advanceClock, startSmallEmulator } from '../../support/subgraphHttp';
import { FakeClock } from './tablesFakes';
import { demoUpstreams } from '../../support/demoUpstreams';
import { buildTestServer } from '../../support/services';
import { articleRepresentations } from '../../support/analytics';
import { postGraphQL } from '../../support/federationGateway';

/** What an editor's panel gets: the analytics of its one article (`A`: the fields its selection reads). */
export type PanelResult<A> = Awaited<ReturnType<typeof postGraphQL<{ _entities: ({ analytics: A | null } | null)[] }>>>;

/** The week's table, fetched by a ranking of its first `rows` (a table of `rows` rows is full): their urls. */
export async function weekRanking(graphqlUrl: string, rows: number): Promise<string[]> {
  const ranking = await postGraphQL<{ topArticles: { article: { url: string } }[] }>(
    graphqlUrl,
    `{ topArticles(window: { last: { number: 7, unit: DAY } }, limit: ${rows}) { article { url } } }`,
  );
  expect(ranking.errors).toBeUndefined();
  const top = ranking.data?.topArticles.map((row) => row.article.url) ?? [];
  expect(top).toHaveLength(rows);
  return top;
}

/** One editor's panel: `_entities` for one article, as a router sends it, reading its analytics' window and `selection`. */
export function panel<A>(graphqlUrl: string, url: string, selection: string): Promise<PanelResult<A>> {
  return postGraphQL(
    graphqlUrl,
    `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { from to fetchedAt ${selection} } } } }`,
    { reps: articleRepresentations([url]) },
  );
}

export interface TablesOverHttp {
  emulator: RunningEmulator;
  recorder: BodyRecorder;
  graphqlUrl: string;
  /** A token of the demo API user, for the test's own direct queries. */
  token: string;
  clock: FakeClock;
  /** Moves the subgraph's clock and the emulator's by the same amount. */
  advanceBoth(ms: number): Promise<void>;
  /** Resolves once exactly `count` asks wait for a slot (an event of the tables, not a sleep). */
  asksWaiting(count: number): Promise<void>;
  /** Resolves once `count` whole tables have been fetched and stored since the start (an event of the tables). */
  tablesStored(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startTablesOverHttp(options: {
  maxRows: number;
  cache: typeof DEFAULT_CACHE_TTLS;
  analytics: AnalyticsConfig;
  /** The emulator's data scale (default: the small emulator's); 1 has some 3,000 articles. */
  emulatorScale?: number;
}): Promise<TablesOverHttp> {
  const clock = new FakeClock(Date.now());
  let waiting = 0;
  const watchers: { count: number; reached: () => void }[] = [];
  const onWaiting = (count: number) => {
    waiting = count;
    for (const watcher of [...watchers]) {
      if (count !== watcher.count) continue;
      watchers.splice(watchers.indexOf(watcher), 1);
      watcher.reached();
    }
  };
  let stored = 0;
  const storedWatchers: { count: number; reached: () => void }[] = [];
  const onTable = () => {
    stored += 1;
    for (const watcher of [...storedWatchers]) {
      if (stored < watcher.count) continue;
      storedWatchers.splice(storedWatchers.indexOf(watcher), 1);
      watcher.reached();
    }
  };
  const emulator = await startSmallEmulator({
    profile: 'realistic',
    ...(options.emulatorScale === undefined ? {} : { scale: options.emulatorScale }),
  });
  const recorder = await startBodyRecorder(emulator.url);
  const upstreams = demoUpstreams({
    reportingBaseUrl: recorder.url,
    recommenderUrl: emulator.url,
    timeoutMs: 5_000,
    protection: { now: () => clock.now(), governor: { ...EMBEDDED_GOVERNOR_CONFIG, reportingPerMinute: 1, queueTimeoutMs: 0 } },
  });
  const { analytics, cache, maxRows } = options;
  // The response cache runs on the real clock: off, so every ask reaches the tables on the fake one.
  const config = testConfig({ renderMaxConcurrency: 4, cache, analytics, reportingMaxRows: maxRows, responseCacheEnabled: false });
  const server = buildTestServer(config, {
    dashboard: upstreams.reporting,
    recommender: upstreams.recommender,
    logger: silentLogger,
    clock,
    // The tables' events, as the one observer hears them: asks waiting for a slot, tables fetched and stored.
    observer: {
      ...NO_OBSERVER,
      asksWaiting: (kind, count) => (kind === 'table' ? onWaiting(count) : undefined),
      tableFetched: () => onTable(),
    },
  });
  await server.start();
  await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
  return {
    emulator,
    recorder,
    graphqlUrl: `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}/graphql`,
    token: await apiToken(emulator),
    clock,
    async advanceBoth(ms) {
      await advanceClock(emulator, ms / 1000);
      await clock.advance(ms);
    },
    asksWaiting(count) {
      if (waiting === count) return Promise.resolve();
      return new Promise((reached) => watchers.push({ count, reached }));
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
