/**
 * A slow consumer over real sockets: a client that stops reading its socket
 * while its subscriptions keep changing is dropped (1013 Try Again Later)
 * once its unsent bytes pass SUBSCRIPTION_MAX_BUFFERED_BYTES, and counted;
 * a healthy subscriber on another socket keeps every change meanwhile.
 */
import { DEFAULT_SUBSCRIPTIONS_CONFIG } from '../../src/config';
import { TimeUnit } from '../../contract';
import { topArticlesSpec, toTopArticlesRequest } from '../../src/reporting/analytics/topArticles';
import { registryValue } from './support/registryValue';
import { startLiveOverHttp, type LiveOverHttp } from './support/liveOverHttp';
import { openRawSubscriber } from './support/rawSubscriber';
import { subscribe } from './support/subscriber';

jest.setTimeout(60_000);

const PANELS = `subscription ($urls: [String!]!) {
  articleAnalytics(urls: $urls) { pageViews uniqueUsers averageDurationPerPage averageScroll from to fetchedAt }
}`;
const WEEK = { last: { number: 7, unit: TimeUnit.DAY } };

let live: LiveOverHttp | undefined;

afterEach(async () => {
  await live?.close();
  live = undefined;
});

it('drops a consumer that stops reading once its unsent bytes pass the bound, while a healthy one keeps every change', async () => {
  // A keep-alive far beyond the test: here only the unsent bytes may drop the consumer (the unanswered ping is floods.test.ts's).
  live = await startLiveOverHttp({
    subscriptions: { ...DEFAULT_SUBSCRIPTIONS_CONFIG, maxBufferedBytes: 16 * 1024, keepAliveMs: 300_000 },
  });
  // The week's ranking is the articles' table (ranked by page views): its urls are the ones the panels read.
  const top = subscribe<{ topArticles: { article: { url: string } }[] }>(
    live.wsUrl,
    `subscription { topArticles(window: { last: { number: 7, unit: DAY } }, limit: 50) { article { url } } }`,
  );
  const urls = (await top.received(1))[0].data?.topArticles.map((row) => row.article.url) ?? [];
  await top.dispose();
  expect(urls.length).toBeGreaterThan(10);

  const healthy = subscribe<{ articleAnalytics: { pageViews: number }[] }>(live.wsUrl, PANELS, { urls });
  await healthy.received(1);
  const slow = await openRawSubscriber(
    live.wsUrl,
    // Ten distinct subscriptions (the same urls in ten orders): ten sends per change on the one socket.
    Array.from({ length: 10 }, (_, turn) => ({ query: PANELS, variables: { urls: [...urls.slice(turn), ...urls.slice(0, turn)] } })),
  );
  slow.pause();

  const key = topArticlesSpec(toTopArticlesRequest({ window: WEEK, limit: 50 })).key;
  let writes = 0;
  while (!(await dropped()) && writes < 2_000) {
    writes += 1;
    await writeChangedTable(key, writes);
    // Each change reaches the healthy socket before the next (so the slow socket was sent it too, however loaded the machine).
    await healthy.receivedWhere((result) => result.data?.articleAnalytics[0].pageViews === writes * 1_000_000);
  }
  expect(await dropped()).toBe(true);
  // The healthy subscriber kept up: the last change reached it.
  const last = await healthy.receivedWhere((result) => result.data?.articleAnalytics[0].pageViews === writes * 1_000_000);
  expect(last.errors).toBeUndefined();

  slow.resume();
  expect(await slow.closed).toEqual({ code: 1013, reason: 'Slow consumer: too much unsent' });
  expect(live.recorder.dashboards).toHaveLength(1);
  await healthy.dispose();
});

async function dropped(): Promise<boolean> {
  return (await registryValue(live!.metrics.registry, 'subgraph_subscribers_dropped_total', { reason: 'slow_consumer' })) === 1;
}

/** A refresh as the tables write it, with every article's page views changed (fetched a moment after the last). */
async function writeChangedTable(key: string, turn: number): Promise<void> {
  const table = await live!.store.table(key);
  if (table === undefined) throw new Error('no table');
  const rows = new Map([...table.rows].map(([url, values], index) => [url, { ...values, pageViewsTotal: turn * 1_000_000 - index }]));
  await live!.store.setTable({ ...table, rows, fetchedAt: table.fetchedAt + 1 });
  // Lets the feeds read and the sockets write before the next change.
  await new Promise((resolve) => setImmediate(resolve));
}
