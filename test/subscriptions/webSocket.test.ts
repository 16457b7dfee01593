/**
 * Subscriptions over real WebSockets (graphql-transport-ws), against the
 * emulator's realistic profile and its real budget, on an injected clock
 * moved with the emulator's: every subscriber gets the ranking at once, then
 * each refresh of its table once, with one vendor query per refresh however
 * many subscribe; a refresh that changed nothing sends nothing.
 */
import { readStats } from '../support/subgraphHttp';
import { registryValue } from './support/registryValue';
import { topArticlesSpec, toTopArticlesRequest } from '../../src/reporting/analytics/topArticles';
import { TimeUnit } from '../../contract';
import { startLiveOverHttp, SLOT_MS, type LiveOverHttp } from './support/liveOverHttp';
import { subscribe, type Subscriber } from './support/subscriber';

jest.setTimeout(30_000);

interface Ranking {
  topArticles: { rank: number; value: number; article: { url: string }; fetchedAt: string }[];
}

const TOP = `subscription ($limit: Int) { topArticles(window: { last: { number: 1, unit: DAY } }, limit: $limit) { rank value article { url } fetchedAt } }`;

let live: LiveOverHttp;
const subscribers: Subscriber<unknown>[] = [];

beforeEach(async () => {
  live = await startLiveOverHttp();
});

afterEach(async () => {
  await Promise.all(subscribers.splice(0).map((subscriber) => subscriber.dispose()));
  await live?.close();
});

it('sends every subscriber the ranking at once and each refresh once, with one vendor query per refresh, however many subscribe', async () => {
  const five = Array.from({ length: 5 }, () => subscribe<Ranking>(live.wsUrl, TOP, { limit: 5 }));
  const three = subscribe<Ranking>(live.wsUrl, TOP, { limit: 3 });
  const all = [...five, three];
  subscribers.push(...all);
  const firsts = await Promise.all(all.map((subscriber) => subscriber.received(1)));
  for (const [result] of firsts) expect(result.errors).toBeUndefined();
  expect(firsts[0][0].data?.topArticles).toHaveLength(5);
  expect(firsts[5][0].data?.topArticles).toHaveLength(3);
  // Six subscribers, two distinct subscriptions, one table: one vendor query.
  expect(live.recorder.dashboards).toHaveLength(1);
  const firstFetchedAt = firsts[0][0].data?.topArticles[0].fetchedAt;

  // Past half the TTL the feeds' pulse asks for a refresh; the next slot (an hour later in the windows' terms) fetches it, once.
  await live.advanceBoth(SLOT_MS + 7_000);
  await live.tablesStored(2);
  const seconds = await Promise.all(all.map((subscriber) => subscriber.received(2)));
  for (const results of seconds) {
    expect(results[1].errors).toBeUndefined();
    expect(results[1].data?.topArticles[0].fetchedAt).not.toBe(firstFetchedAt);
  }
  expect(live.recorder.dashboards).toHaveLength(2);
  expect(live.recorder.dashboardStatuses).toEqual([200, 200]);
  expect((await readStats(live.emulator)).dashboard.count).toBe(2);

  expect(await registryValue(live.metrics.registry, 'subgraph_subscriptions_open', { field: 'topArticles' })).toBe(6);
  expect(await registryValue(live.metrics.registry, 'subgraph_subscription_events_total', { field: 'topArticles' })).toBe(12);
  // A round trip on every socket later, still exactly two emissions each: the refresh reached each subscriber once.
  await Promise.all(all.map((subscriber) => roundTrip(subscriber)));
  for (const subscriber of all) expect(subscriber.results).toHaveLength(2);
  expect(live.recorder.dashboards).toHaveLength(2);
});

it('sends nothing when a refresh changed nothing, and the change when one did', async () => {
  const subscriber = subscribe<Ranking>(live.wsUrl, TOP, { limit: 3 });
  subscribers.push(subscriber);
  const [first] = await subscriber.received(1);
  expect(first.errors).toBeUndefined();
  const key = topArticlesSpec(toTopArticlesRequest({ window: { last: { number: 1, unit: TimeUnit.DAY } }, limit: 3 })).key;
  const table = await live.store.table(key);
  if (table === undefined) throw new Error('no table');
  // Written again with the same numbers (as a refresh that changed nothing), then with the leader's value changed.
  await live.store.setTable({ ...table, fetchedAt: table.fetchedAt + 1 });
  const [leader, leaderValues] = [...table.rows][0];
  const rows = new Map(table.rows);
  rows.set(leader, { ...leaderValues, pageViewsTotal: (leaderValues.pageViewsTotal ?? 0) + 1_000_000 });
  await live.store.setTable({ ...table, rows, fetchedAt: table.fetchedAt + 2 });
  const results = await subscriber.received(2);
  await roundTrip(subscriber);
  expect(results).toHaveLength(2);
  expect(results[1].data?.topArticles[0].value).toBe((leaderValues.pageViewsTotal ?? 0) + 1_000_000);
  expect(results[1].data?.topArticles[0].fetchedAt).toBe(new Date(table.fetchedAt + 2).toISOString());
  expect(live.recorder.dashboards).toHaveLength(1);
});

/**
 * Another subscription on the same socket, answered from the table: anything the server had sent
 * on that socket before it has arrived by the time its first result does.
 */
async function roundTrip(subscriber: Subscriber<unknown>): Promise<void> {
  const probe = subscribe(
    live.wsUrl,
    `subscription { topArticles(window: { last: { number: 1, unit: DAY } }, limit: 1) { rank } }`,
    {},
    subscriber.client,
  );
  await probe.received(1);
  probe.unsubscribe();
}
