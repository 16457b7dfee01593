/**
 * An emission is executed and serialized once per feed and selection, not
 * once per subscriber (issue 38, item 2): ten thousand screens on a hundred
 * feeds cost a hundred executions and JSON texts a refresh, and each
 * subscriber's `next` message carries that one text. Over real WebSockets;
 * what each subscriber receives is unchanged.
 */
import { Subscription } from '../../src/graphql/resolvers/subscription';
import { topArticlesSpec, toTopArticlesRequest } from '../../src/reporting/analytics/topArticles';
import { TimeUnit } from '../../contract';
import { startLiveOverHttp, type LiveOverHttp } from './support/liveOverHttp';
import { subscribe, type Subscriber } from './support/subscriber';

jest.setTimeout(30_000);

interface Ranking {
  topArticles: { rank: number; value: number; article?: { url: string }; fetchedAt: string }[];
}

const WINDOW = `window: { last: { number: 1, unit: DAY } }`;
const WITH_URLS = `subscription ($limit: Int) { topArticles(${WINDOW}, limit: $limit) { rank value article { url } fetchedAt } }`;
/** The same feed (same arguments), another selection: its own execution and JSON text. */
const WITHOUT_URLS = `subscription ($limit: Int) { topArticles(${WINDOW}, limit: $limit) { rank value fetchedAt } }`;

let live: LiveOverHttp | undefined;
const subscribers: Subscriber<unknown>[] = [];

afterEach(async () => {
  await Promise.all(subscribers.splice(0).map((subscriber) => subscriber.dispose()));
  await live?.close();
  jest.restoreAllMocks();
});

/** A text JSON.stringify made that holds a ranking's data (a `next` payload, or a whole `next` message): the ranking serialized. */
function carriesRanking(text: unknown): boolean {
  return typeof text === 'string' && text.includes('"topArticles":[');
}

it('executes and serializes each emission once per feed and selection, however many subscribe, and each subscriber receives it', async () => {
  // Spied before the server builds its schema, which takes the resolver map's functions.
  const executions = jest.spyOn(Subscription.topArticles as unknown as { resolve: (emission: never) => unknown }, 'resolve');
  const stringify = jest.spyOn(JSON, 'stringify');
  const serializations = () => stringify.mock.results.filter((result) => carriesRanking(result.value)).length;
  live = await startLiveOverHttp();
  const wsUrl = live.wsUrl;

  const first = subscribe<Ranking>(wsUrl, WITH_URLS, { limit: 5 });
  subscribers.push(first);
  await first.received(1);
  // The feed's numbers are there: the others join it and get the same emission.
  const sameSelection = Array.from({ length: 4 }, () => subscribe<Ranking>(wsUrl, WITH_URLS, { limit: 5 }));
  const otherSelection = subscribe<Ranking>(wsUrl, WITHOUT_URLS, { limit: 5 });
  const all = [first, ...sameSelection, otherSelection];
  subscribers.push(...sameSelection, otherSelection);
  const firsts = await Promise.all(all.map((subscriber) => subscriber.received(1)));
  for (const [result] of firsts) expect(result.errors).toBeUndefined();
  for (const [result] of firsts.slice(1, 5)) expect(result).toEqual(firsts[0][0]);
  expect(firsts[5][0].data?.topArticles.map(({ rank, value, fetchedAt }) => ({ rank, value, fetchedAt }))).toEqual(
    firsts[0][0].data?.topArticles.map(({ rank, value, fetchedAt }) => ({ rank, value, fetchedAt })),
  );
  expect(firsts[5][0].data?.topArticles[0]).not.toHaveProperty('article');
  // Six subscribers, one emission, two selections.
  expect(executions).toHaveBeenCalledTimes(2);
  expect(serializations()).toBe(2);

  // A refresh that moved the leader's numbers: one read, one emission for all six.
  const key = topArticlesSpec(toTopArticlesRequest({ window: { last: { number: 1, unit: TimeUnit.DAY } }, limit: 5 })).key;
  const table = await live.store.table(key);
  if (table === undefined) throw new Error('no table');
  const [leader, leaderValues] = [...table.rows][0];
  const rows = new Map(table.rows);
  rows.set(leader, { ...leaderValues, pageViewsTotal: (leaderValues.pageViewsTotal ?? 0) + 1_000_000 });
  await live.store.setTable({ ...table, rows, fetchedAt: table.fetchedAt + 1 });
  const seconds = await Promise.all(all.map((subscriber) => subscriber.received(2)));
  for (const results of seconds) {
    expect(results[1].errors).toBeUndefined();
    expect(results[1].data?.topArticles[0].value).toBe((leaderValues.pageViewsTotal ?? 0) + 1_000_000);
  }
  for (const results of seconds.slice(1, 5)) expect(results[1]).toEqual(seconds[0][1]);
  expect(executions).toHaveBeenCalledTimes(4);
  expect(serializations()).toBe(4);
});
