/**
 * Subscriptions read through the same caller-scoped read path as queries
 * (src/reporting/reads/): a metric outside the caller's scopes is refused when
 * the subscription starts, FORBIDDEN naming the scope, before any table is
 * asked, so no vendor query carries it (the emulator's counts do not move).
 * Over real sockets, the caller admitted by its JWT.
 */
import { readStats } from '../support/subgraphHttp';
import { startLiveOverHttp, type LiveOverHttp } from '../subscriptions/support/liveOverHttp';
import { connect, subscribe, type Subscriber } from '../subscriptions/support/subscriber';
import { AUDIENCE, callerAuth, ISSUER, serveJwks, signingKey, signToken, type JwksServer, type SigningKey } from './support';

jest.setTimeout(30_000);

const GLOBE = 'dailyglobe.example';

let jwks: JwksServer;
let key: SigningKey;
let live: LiveOverHttp;
const subscribers: Subscriber<unknown>[] = [];

beforeAll(async () => {
  key = await signingKey('key-1');
  jwks = await serveJwks([key]);
  live = await startLiveOverHttp({
    callerAuth: callerAuth(['jwt'], { jwks: { url: jwks.url }, issuer: ISSUER, audience: AUDIENCE, sitesClaim: 'sites' }),
  });
});

afterEach(async () => {
  await Promise.all(subscribers.splice(0).map((subscriber) => subscriber.dispose()));
});

afterAll(async () => {
  await live?.close();
  await jwks?.close();
});

async function upstreamCalls(): Promise<number> {
  const stats = await readStats(live.emulator);
  return stats.signin.count + stats.dashboard.count + stats.render.count;
}

async function subscribeAs<T>(
  claims: Record<string, unknown>,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<Subscriber<T>> {
  const token = await signToken(key, { claims });
  const subscriber = subscribe<T>(live.wsUrl, query, variables, connect(live.wsUrl, { authorization: `Bearer ${token}` }));
  subscribers.push(subscriber as Subscriber<unknown>);
  return subscriber;
}

/** The errors the subscription was refused with: its one result's, then its end. */
async function refusalOf(subscriber: Subscriber<unknown>): Promise<Array<{ message: string; extensions?: Record<string, unknown> }>> {
  const [result] = await subscriber.received(1);
  expect(result.data ?? null).toBeNull();
  expect(await subscriber.ended).toEqual({ completed: true });
  return (result.errors ?? []) as Array<{ message: string; extensions?: Record<string, unknown> }>;
}

const ARTICLES = `subscription ($urls: [String!]!) { articleAnalytics(urls: $urls) { pageViews revenue } }`;

it('refuses ArticleAnalytics.revenue without revenue:read when the subscription starts, before any vendor query', async () => {
  const url = live.emulator.store.articles.find((article) => article.domain === GLOBE)!.url;
  const before = await upstreamCalls();
  const refused = await subscribeAs({ scope: 'reporting:read', sites: [GLOBE] }, ARTICLES, { urls: [url] });
  const errors = await refusalOf(refused);
  expect(errors.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
  expect(errors[0].message).toMatch(/revenue:read/);
  expect(await upstreamCalls()).toBe(before);
  expect(live.recorder.dashboards).toHaveLength(0);
});

it('refuses metric(metric: RPM) the same way, and admits the caller holding revenue:read', async () => {
  const url = live.emulator.store.articles.find((article) => article.domain === GLOBE)!.url;
  const before = await upstreamCalls();
  const refused = await subscribeAs(
    { scope: 'reporting:read', sites: [GLOBE] },
    `subscription ($urls: [String!]!) { articleAnalytics(urls: $urls) { rpm: metric(metric: RPM) } }`,
    {
      urls: [url],
    },
  );
  expect((await refusalOf(refused)).map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
  expect(await upstreamCalls()).toBe(before);

  const reader = await subscribeAs<{ articleAnalytics: Array<{ revenue: number }> }>(
    { scope: 'reporting:read revenue:read', sites: [GLOBE] },
    ARTICLES,
    { urls: [url] },
  );
  // Admitted, and its feed asked the vendor (its numbers, or the budget's answer while revenue waits for a slot of its own).
  const [first] = await reader.received(1);
  expect(first.data?.articleAnalytics).toHaveLength(1);
  expect((first.errors ?? []).map((error) => error.extensions?.code)).not.toContain('FORBIDDEN');
  expect(live.recorder.dashboards.length).toBeGreaterThan(0);
});
