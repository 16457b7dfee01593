/**
 * `Subscription.articleAnalytics` over a real WebSocket: the articles'
 * numbers at once (each item with its fetchedAt, from and to, as the
 * queries), from the article table `Article.analytics` reads: a subscription
 * beside a query of the same window costs no second vendor query.
 */
import { postGraphQL } from '../support/federationGateway';
import { articleRepresentations } from '../support/analytics';
import { startLiveOverHttp, type LiveOverHttp } from './support/liveOverHttp';
import { subscribe } from './support/subscriber';

jest.setTimeout(30_000);

interface Item {
  pageViews: number;
  revenue: number | null;
  from: string;
  to: string;
  fetchedAt: string;
}

let live: LiveOverHttp | undefined;

afterEach(async () => {
  await live?.close();
  live = undefined;
});

it('emits each article’s numbers with their window and age, from the table the queries read', async () => {
  live = await startLiveOverHttp();
  const top = await postGraphQL<{ topArticles: { article: { url: string } }[] }>(
    live.graphqlUrl,
    `{ topArticles(window: { last: { number: 7, unit: DAY } }, limit: 3) { article { url } } }`,
  );
  const urls = top.data?.topArticles.map((row) => row.article.url) ?? [];
  expect(urls).toHaveLength(3);
  const panels = await postGraphQL<{ _entities: { analytics: Item }[] }>(
    live.graphqlUrl,
    `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { pageViews from to fetchedAt } } } }`,
    { reps: articleRepresentations(urls) },
  );

  const subscriber = subscribe<{ articleAnalytics: Item[] }>(
    live.wsUrl,
    `subscription ($urls: [String!]!) { articleAnalytics(urls: $urls) { pageViews from to fetchedAt } }`,
    { urls },
  );
  const [first] = await subscriber.received(1);
  expect(first.errors).toBeUndefined();
  expect(first.data?.articleAnalytics).toEqual(panels.data?._entities.map((entity) => entity.analytics));
  // One table for the ranking, the panels and the subscription.
  expect(live.recorder.dashboards).toHaveLength(1);
  await subscriber.dispose();
});
