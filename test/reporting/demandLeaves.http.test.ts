/**
 * Demand leaves with its subscribers (issue 35, item 4), over real sockets
 * (graphql-ws) against the emulator's realistic profile (one dashboard query
 * a minute): subscriptions opened and completed at once, each on a table of
 * its own (a `section` of its own), spend no vendor query once nobody
 * subscribes to them any more, however long the clocks then run; and a
 * caller cannot make the subgraph fetch tables without bound
 * (ANALYTICS_NEW_TABLES_PER_CALLER), refused with a GraphQL error and its code.
 */
import { DEFAULT_ANALYTICS_CONFIG } from '../../src/config';
import type { Logger } from '../../src/observability/logger';
import { call } from '../support/emulator';
import { startLiveOverHttp, SLOT_MS, type LiveOverHttp } from '../subscriptions/support/liveOverHttp';
import { connect, subscribe } from '../subscriptions/support/subscriber';

jest.setTimeout(60_000);

const PAIRS_PER_SOCKET = 25;
const SOCKETS = 8;
const SECTION_TOP = `subscription ($section: String!) { topArticles(section: $section, limit: 3) { rank value fetchedAt } }`;

let live: LiveOverHttp | undefined;

afterEach(async () => {
  await live?.close();
  live = undefined;
});

/** A logger that tells when `count` subscriptions have started, or ended, on the server (the operation log's lines). */
function subscriptionLines() {
  const counts = { 'subscription started': 0, 'subscription ended': 0 };
  type Line = keyof typeof counts;
  const watchers: { line: Line; count: number; reached: () => void }[] = [];
  const log = (_fields: unknown, message?: string) => {
    if (message !== 'subscription started' && message !== 'subscription ended') return;
    counts[message] += 1;
    for (const watcher of [...watchers]) {
      if (watcher.line !== message || counts[message] < watcher.count) continue;
      watchers.splice(watchers.indexOf(watcher), 1);
      watcher.reached();
    }
  };
  const logger = { debug: log, info: log, warn: log, error: log } as unknown as Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  const reached = (line: Line, count: number) =>
    counts[line] >= count ? Promise.resolve() : new Promise<void>((resolve) => watchers.push({ line, count, reached: resolve }));
  return {
    logger,
    started: (count: number) => reached('subscription started', count),
    ended: (count: number) => reached('subscription ended', count),
  };
}

async function dashboardQueriesSeen(running: LiveOverHttp): Promise<number> {
  return (await call<{ dashboard: { count: number } }>(running.emulator, '/__emulator/stats')).body.dashboard.count;
}

async function topArticlesOverHttp(running: LiveOverHttp, section?: string) {
  const response = await fetch(running.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: `query ($section: String) { topArticles(section: $section, limit: 1) { rank } }`,
      variables: { section: section ?? null },
    }),
  });
  return (await response.json()) as { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

it('spends no vendor query on tables whose subscribers all left: many subscribe/complete pairs on distinct tables', async () => {
  const lines = subscriptionLines();
  live = await startLiveOverHttp(
    {
      // Asks may wait two minutes for a slot: a waiting ask of a table nobody wants would reach the next slot.
      analytics: { ...DEFAULT_ANALYTICS_CONFIG, windowAlignSeconds: 3_600, askDeadlineMs: 120_000, newTablesPerCaller: 10_000 },
    },
    { logger: lines.logger },
  );
  // The slot of this minute goes to the newsroom's ranking; the next one is a slot away.
  expect((await topArticlesOverHttp(live)).errors).toBeUndefined();
  await call(live.emulator, '/__emulator/stats', { method: 'DELETE' });

  // One pair after the other, round the sockets: subscribe to a table of its own, and complete as soon as the server
  // started it (its first read then waits for a slot).
  const clients = Array.from({ length: SOCKETS }, () => connect(live!.wsUrl));
  for (let pair = 0; pair < SOCKETS * PAIRS_PER_SOCKET; pair += 1) {
    const subscriber = subscribe(live.wsUrl, SECTION_TOP, { section: `Flood-${pair}` }, clients[pair % SOCKETS]);
    await lines.started(pair + 1);
    subscriber.unsubscribe();
  }
  await lines.ended(SOCKETS * PAIRS_PER_SOCKET);
  // Two slots on both clocks: every slot they bring is free for a waiting ask.
  await live.advanceBoth(SLOT_MS);
  await live.advanceBoth(SLOT_MS);

  expect(await dashboardQueriesSeen(live)).toBe(0);
  expect(live.recorder.dashboards.filter((body) => body.filters.some((filter) => filter.filter === 'section'))).toEqual([]);
  await Promise.all(clients.map((client) => client.dispose()));
});

it('refuses a caller the tables past its cap with UPSTREAM_RATE_LIMITED and retryAfter, before any vendor query for them', async () => {
  live = await startLiveOverHttp({
    analytics: { ...DEFAULT_ANALYTICS_CONFIG, windowAlignSeconds: 3_600, askDeadlineMs: 120_000, newTablesPerCaller: 2 },
  });
  await call(live.emulator, '/__emulator/stats', { method: 'DELETE' });
  // Two new tables: the first is fetched at once, the second waits for the next slot (it is the caller's second).
  expect((await topArticlesOverHttp(live, 'Cap-1')).errors).toBeUndefined();
  const second = topArticlesOverHttp(live, 'Cap-2').catch((error: unknown) => ({ errors: [{ message: String(error) }] }));
  // The third new table is refused at once: no wait, no query.
  const third = await topArticlesOverHttp(live, 'Cap-3');
  expect(third.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_RATE_LIMITED']);
  expect(third.errors?.[0].message).toContain('ANALYTICS_NEW_TABLES_PER_CALLER');
  expect(third.errors?.[0].extensions?.retryAfter).toEqual(expect.any(Number));
  // A table already held costs no new table: the first one is still answered.
  expect((await topArticlesOverHttp(live, 'Cap-1')).errors).toBeUndefined();

  await live.advanceBoth(SLOT_MS);
  expect((await second).errors).toBeUndefined();
  const sections = live.recorder.dashboards.flatMap((body) =>
    body.filters.filter((filter) => filter.filter === 'section').map((filter) => filter.value),
  );
  expect(sections).toEqual([['Cap-1'], ['Cap-2']]);
  expect(await dashboardQueriesSeen(live)).toBe(2);
});
