/**
 * CALLER_AUTH on subscriptions, over real sockets: the same proofs, scopes
 * and sites as the queries, checked at subscribe time. Header proofs are
 * checked on the WebSocket upgrade (401 with a JSON body, as the HTTP gate
 * answers); a JWT comes on the upgrade's Authorization header or in the
 * `connection_init` params (4403 and the problem when missing or wrong);
 * scopes and sites are checked when the subscription starts. Every refusal
 * happens before any upstream call (the emulator's counts do not move).
 */
import WebSocket from 'ws';
import type { CallerAuthConfig } from '../../src/config';
import { ingestMostRead } from '../support/analytics';
import { readStats } from '../support/subgraphHttp';
import {
  AUDIENCE,
  callerAuth,
  HMAC_SECRET,
  ISSUER,
  ROUTER_SECRET,
  serveJwks,
  signingKey,
  signToken,
  type JwksServer,
  type SigningKey,
} from '../security/support';
import { startLiveOverHttp, type LiveOverHttp } from './support/liveOverHttp';
import { connect, subscribe, type Subscriber } from './support/subscriber';

jest.setTimeout(30_000);

const GLOBE = 'dailyglobe.example';
const METRO = 'metrotimes.example';
const SPORTS = 'sportsdesk.example';
const HOUR_MS = 3_600_000;

interface Ranking {
  topArticles: { value: number; article: { url: string } }[];
}
const TOP = `subscription ($domain: String) { topArticles(limit: 5, domain: $domain) { value article { url } } }`;
const REVENUE = `subscription { topArticles(metric: REVENUE_TOTAL, limit: 3) { value } }`;
const ARTICLES = `subscription ($urls: [String!]!) { articleAnalytics(urls: $urls) { pageViews } }`;

let jwks: JwksServer;
let key: SigningKey;
let live: LiveOverHttp | undefined;
const subscribers: Subscriber<unknown>[] = [];

beforeAll(async () => {
  key = await signingKey('key-1');
  jwks = await serveJwks([key]);
});

afterAll(async () => {
  await jwks?.close();
});

afterEach(async () => {
  await Promise.all(subscribers.splice(0).map((subscriber) => subscriber.dispose()));
  await live?.close();
  live = undefined;
});

function track<T>(subscriber: Subscriber<T>): Subscriber<T> {
  subscribers.push(subscriber as Subscriber<unknown>);
  return subscriber;
}

const jwtAuth = (): CallerAuthConfig =>
  callerAuth(['jwt'], { jwks: { url: jwks.url }, issuer: ISSUER, audience: AUDIENCE, sitesClaim: 'sites' });

async function upstreamCalls(): Promise<number> {
  const stats = await readStats(live!.emulator);
  return stats.signin.count + stats.dashboard.count + stats.render.count;
}

/** An upgrade the subgraph refuses: its HTTP status and JSON body. */
function refusedUpgrade(headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(live!.wsUrl, 'graphql-transport-ws', { headers });
    socket.on('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    socket.on('open', () => {
      socket.close();
      reject(new Error('the upgrade was accepted'));
    });
    socket.on('error', () => undefined);
  });
}

async function expectUpgradeRefused(headers: Record<string, string>, problem: RegExp): Promise<void> {
  const before = await upstreamCalls();
  const { status, text } = await refusedUpgrade(headers);
  expect(status).toBe(401);
  const body = JSON.parse(text) as { errors: { message: string; extensions: { code: string } }[] };
  expect(body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  expect(body.errors[0].message).toMatch(problem);
  expect(text).not.toContain(ROUTER_SECRET);
  expect(text).not.toContain(HMAC_SECRET);
  expect(await upstreamCalls()).toBe(before);
}

/** A subscription refused (not closed): one result carrying the error, then its end; its codes and first message. */
async function expectSubscriptionRefused(subscriber: Subscriber<unknown>, code: string, problem: RegExp): Promise<void> {
  expect(await subscriber.ended).toEqual({ completed: true });
  expect(subscriber.results).toHaveLength(1);
  expect(subscriber.results[0].data ?? null).toBeNull();
  const errors = subscriber.results[0].errors ?? [];
  expect(errors.map((error) => error.extensions?.code)).toEqual([code]);
  expect(errors[0].message).toMatch(problem);
}

describe('router-secret', () => {
  beforeEach(async () => {
    live = await startLiveOverHttp({ callerAuth: callerAuth(['router-secret']) });
  });

  it('refuses an upgrade without the header with 401 UNAUTHENTICATED naming it, before any upstream call', async () => {
    await expectUpgradeRefused({}, /missing the x-router-secret header/);
    await expectUpgradeRefused({ 'x-router-secret': `${ROUTER_SECRET}x` }, /does not hold the router's secret/);
    expect(live!.recorder.dashboards).toHaveLength(0);
  });

  it('admits the upgrade that carries it', async () => {
    const admitted = track(subscribe<Ranking>(live!.wsUrl, TOP, {}, connect(live!.wsUrl, undefined, { 'x-router-secret': ROUTER_SECRET })));
    const [first] = await admitted.received(1);
    expect(first.errors).toBeUndefined();
    expect(first.data?.topArticles).toHaveLength(5);
  });
});

describe('hmac', () => {
  it('alone: refuses every upgrade, saying a socket cannot carry the signature', async () => {
    live = await startLiveOverHttp({ callerAuth: callerAuth(['hmac']) });
    await expectUpgradeRefused({}, /hmac.*WebSocket/);
  });

  it('with router-secret: the router secret on the upgrade vouches for the router', async () => {
    live = await startLiveOverHttp({ callerAuth: callerAuth(['router-secret', 'hmac']) });
    await expectUpgradeRefused({}, /missing the x-router-secret header/);
    const admitted = track(subscribe<Ranking>(live.wsUrl, TOP, {}, connect(live.wsUrl, undefined, { 'x-router-secret': ROUTER_SECRET })));
    expect((await admitted.received(1))[0].errors).toBeUndefined();
  });
});

describe('jwt: proof, scopes and sites', () => {
  beforeEach(async () => {
    live = await startLiveOverHttp({ callerAuth: jwtAuth() });
  });

  const token = (claims: Record<string, unknown>) => signToken(key, { claims });
  const withParams = async (claims: Record<string, unknown>) => connect(live!.wsUrl, { authorization: `Bearer ${await token(claims)}` });

  it('closes a connection without a token with 4403 naming the problem, before any upstream call', async () => {
    const before = await upstreamCalls();
    const refused = track(subscribe(live!.wsUrl, TOP, {}, connect(live!.wsUrl)));
    const closed = await refused.closed;
    expect(closed.code).toBe(4403);
    expect(closed.reason).toMatch(/bearer token/);
    expect(await upstreamCalls()).toBe(before);
  });

  it('closes a connection whose token is not valid with 4403, and refuses a bad Authorization header on the upgrade with 401', async () => {
    const before = await upstreamCalls();
    const forged = track(subscribe(live!.wsUrl, TOP, {}, connect(live!.wsUrl, { authorization: 'Bearer not-a-jwt' })));
    const closed = await forged.closed;
    expect(closed.code).toBe(4403);
    expect(closed.reason).toMatch(/bearer token was refused/);
    await expectUpgradeRefused({ authorization: 'Bearer not-a-jwt' }, /bearer token was refused/);
    expect(await upstreamCalls()).toBe(before);
  });

  it('admits a token in the connection params or on the upgrade header', async () => {
    const claims = { scope: 'reporting:read', sites: [GLOBE, METRO, SPORTS] };
    const inParams = track(subscribe<Ranking>(live!.wsUrl, TOP, {}, await withParams(claims)));
    expect((await inParams.received(1))[0].errors).toBeUndefined();
    const onUpgrade = track(
      subscribe<Ranking>(live!.wsUrl, TOP, {}, connect(live!.wsUrl, undefined, { authorization: `Bearer ${await token(claims)}` })),
    );
    const [first] = await onUpgrade.received(1);
    expect(first.errors).toBeUndefined();
    expect(first.data?.topArticles).toHaveLength(5);
  });

  it('refuses a subscription without reporting:read with FORBIDDEN at subscribe time, before any table ask', async () => {
    const before = await upstreamCalls();
    const refused = track(subscribe(live!.wsUrl, TOP, {}, await withParams({ scope: 'profile', sites: [GLOBE] })));
    await expectSubscriptionRefused(refused, 'FORBIDDEN', /Subscription.topArticles.*reporting:read/);
    const articles = track(
      subscribe(live!.wsUrl, ARTICLES, { urls: [`https://${GLOBE}/a`] }, await withParams({ scope: 'profile', sites: [GLOBE] })),
    );
    await expectSubscriptionRefused(articles, 'FORBIDDEN', /Subscription.articleAnalytics.*reporting:read/);
    expect(await upstreamCalls()).toBe(before);
    expect(live!.recorder.dashboards).toHaveLength(0);
  });

  it('refuses a metric the caller may not use (REVENUE_TOTAL without revenue:read) at subscribe time', async () => {
    const before = await upstreamCalls();
    const refused = track(subscribe(live!.wsUrl, REVENUE, {}, await withParams({ scope: 'reporting:read', sites: [GLOBE] })));
    await expectSubscriptionRefused(refused, 'FORBIDDEN', /revenue:read/);
    expect(await upstreamCalls()).toBe(before);
  });

  it('refuses a domain outside the caller’s sites, and an article on another site, with FORBIDDEN before any table ask', async () => {
    const before = await upstreamCalls();
    const domain = track(subscribe(live!.wsUrl, TOP, { domain: METRO }, await withParams({ scope: 'reporting:read', sites: [GLOBE] })));
    await expectSubscriptionRefused(domain, 'FORBIDDEN', /outside the sites this caller may read: metrotimes\.example/);
    const article = track(
      subscribe(
        live!.wsUrl,
        ARTICLES,
        { urls: [`https://${METRO}/politics/x`] },
        await withParams({ scope: 'reporting:read', sites: [GLOBE] }),
      ),
    );
    await expectSubscriptionRefused(article, 'FORBIDDEN', /site this caller may not read \(metrotimes\.example\)/);
    expect(await upstreamCalls()).toBe(before);
  });

  it('gives a caller of some sites only its sites’ rows, from the shared table, never the feed of a caller of every site', async () => {
    // The day's most read articles are the test's own (ingested inside the first table's window), never the demo data's.
    const ranked = await ingestMostRead(
      live!.emulator,
      [
        `https://${METRO}/city/most-read`,
        ...[1, 2, 3].flatMap((n) => [`https://${GLOBE}/news/read-${n}`, `https://${SPORTS}/match/read-${n}`]),
      ].map((url) => ({ url })),
      { at: live!.clock.now() - 2 * HOUR_MS },
    );
    const everySite = track(
      subscribe<Ranking>(live!.wsUrl, TOP, {}, await withParams({ scope: 'reporting:read', sites: [GLOBE, METRO, SPORTS] })),
    );
    const all = (await everySite.received(1))[0].data?.topArticles ?? [];
    expect(all.map((row) => row.article.url)).toEqual(ranked.slice(0, 5));
    const twoSites = track(subscribe<Ranking>(live!.wsUrl, TOP, {}, await withParams({ scope: 'reporting:read', sites: [GLOBE, SPORTS] })));
    const [first] = await twoSites.received(1);
    expect(first.errors).toBeUndefined();
    const rows = first.data?.topArticles ?? [];
    // The caller's five best: the all-sites ranking without the other site's article.
    expect(rows.map((row) => row.article.url)).toEqual(ranked.filter((url) => new URL(url).hostname !== METRO).slice(0, 5));
    for (const row of rows) expect([GLOBE, SPORTS]).toContain(new URL(row.article.url).hostname);
    // The shared all-sites table, read for both: the caller's rows are picked from it, no vendor query of its own.
    expect(live!.recorder.dashboards).toHaveLength(1);
  });
});
