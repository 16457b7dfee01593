/**
 * The upstream protection over real HTTP against the emulator: the cache,
 * coalescing, stale answers, the breaker and the governor, counted by the
 * emulator's own stats. The subgraph's clock is a fake one the tests move
 * (TTLs, stale windows); the breaker's cool-down is configured short.
 */
import type { RunningEmulator } from '../../emulator';
import { recordEvents, type UpstreamEvent } from '../support/upstreamEvents';
import { RATE_WINDOW_MS } from '../../src/upstream/stores/rateStore';
import { postGraphQL } from '../support/federationGateway';
import {
  addFault,
  advanceClock,
  clearFaults,
  readStats,
  resetStats,
  startSmallEmulator,
  startSubgraph,
  type RunningSubgraph,
  type SubgraphOverEmulatorOptions,
} from '../support/subgraphHttp';

const RECOMMENDATIONS = `query R($experienceId: ID!, $domain: String, $clientId: ID) {
  recommendations(experienceId: $experienceId, domain: $domain, clientId: $clientId) { url fetchedAt }
}`;
const DASHBOARD = `query D($query: DashboardQueryInput!) { dashboard(query: $query) { metric total fetchedAt } }`;
const days = (number: number) => ({ dates: { last: { number, unit: 'DAY' } }, metrics: ['PAGE_VIEWS_TOTAL'] });

type Recommendations = { recommendations: { url: string; fetchedAt: string }[] | null };
type Dashboard = { dashboard: { metric: string; total: number; fetchedAt: string }[] | null };

class FakeClock {
  ms = Date.UTC(2026, 10, 23, 12);
  readonly now = () => this.ms;
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

const opened: RunningSubgraph[] = [];
let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startSmallEmulator();
});
afterAll(async () => {
  await Promise.all(opened.map((subgraph) => subgraph.close()));
  await emulator?.close();
});
beforeEach(async () => {
  await clearFaults(emulator);
  await resetStats(emulator);
});

async function subgraphWith(options: SubgraphOverEmulatorOptions): Promise<RunningSubgraph> {
  const subgraph = await startSubgraph(emulator, { timeoutMs: 2_000, ...options });
  opened.push(subgraph);
  return subgraph;
}

function experience(rankingProfile: string) {
  const found = emulator.demo.experiences.find((candidate) => candidate.rankingProfile === rankingProfile);
  if (!found) throw new Error(`no seeded ${rankingProfile} experience`);
  return found;
}

const codes = (response: { errors?: { extensions?: Record<string, unknown> }[] }) =>
  (response.errors ?? []).map((error) => error.extensions?.code);

describe('shared answer cache and coalescing', () => {
  let subgraph: RunningSubgraph;
  const clock = new FakeClock();
  beforeAll(async () => {
    subgraph = await subgraphWith({ protection: { now: clock.now } });
  });

  test('50 concurrent identical dashboard operations make one upstream call; later ones hit the cache', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => postGraphQL<Dashboard>(subgraph.graphqlUrl, DASHBOARD, { query: days(2) })),
    );
    const again = await postGraphQL<Dashboard>(subgraph.graphqlUrl, DASHBOARD, { query: days(2) });

    expect(responses.flatMap(codes)).toEqual([]);
    expect(new Set(responses.map((response) => JSON.stringify(response.data))).size).toBe(1);
    expect(again.data).toEqual(responses[0].data);
    expect(again.data?.dashboard?.[0].fetchedAt).toBe(new Date(clock.ms).toISOString());
    expect((await readStats(emulator)).dashboard).toEqual({ count: 1, distinct: 1 });
  });

  test('aliases with identical arguments in one operation make one dashboard call', async () => {
    const response = await postGraphQL<{ a: unknown; b: unknown }>(
      subgraph.graphqlUrl,
      `query Two($query: DashboardQueryInput!) { a: dashboard(query: $query) { total } b: dashboard(query: $query) { total } }`,
      { query: days(3) },
    );
    expect(response.errors).toBeUndefined();
    expect(response.data?.a).toEqual(response.data?.b);
    expect((await readStats(emulator)).dashboard).toEqual({ count: 1, distinct: 1 });
  });

  test('recommendations are cached per full parameter set: another reader gets its own call', async () => {
    const personalized = experience('personalized');
    const ask = (clientId: string) =>
      postGraphQL<Recommendations>(subgraph.graphqlUrl, RECOMMENDATIONS, {
        experienceId: personalized.id,
        domain: personalized.domain,
        clientId,
      });

    const [first, other, firstAgain] = [await ask('reader-a'), await ask('reader-b'), await ask('reader-a')];

    expect([first, other, firstAgain].flatMap(codes)).toEqual([]);
    expect(firstAgain.data).toEqual(first.data);
    expect((await readStats(emulator)).render).toEqual({ count: 2, distinct: 2 });
  });

  test('an expired answer is served at once while one background call refreshes it', async () => {
    const mostRead = experience('mostRead');
    const variables = { experienceId: mostRead.id, domain: mostRead.domain };
    const first = await postGraphQL<Recommendations>(subgraph.graphqlUrl, RECOMMENDATIONS, variables);
    const firstFetchedAt = first.data?.recommendations?.[0].fetchedAt;
    clock.advance(61);

    const stale = await postGraphQL<Recommendations>(subgraph.graphqlUrl, RECOMMENDATIONS, variables);
    expect(stale.data).toEqual(first.data);
    // The refresh is in flight or done; either way the next answer is the refreshed one, with no third call.
    let fresh = stale;
    while (fresh.data?.recommendations?.[0].fetchedAt === firstFetchedAt) {
      fresh = await postGraphQL<Recommendations>(subgraph.graphqlUrl, RECOMMENDATIONS, variables);
    }
    expect(fresh.data?.recommendations?.[0].fetchedAt).toBe(new Date(clock.ms).toISOString());
    expect((await readStats(emulator)).render).toEqual({ count: 2, distinct: 1 });
  });

  test('when the upstream fails, an answer up to STALE_IF_ERROR_SECONDS old is served instead of an error', async () => {
    const mostRead = experience('mostRead');
    const variables = { experienceId: mostRead.id, domain: 'metrotimes.example' };
    const first = await postGraphQL<Recommendations>(subgraph.graphqlUrl, RECOMMENDATIONS, variables);
    await addFault(emulator, { target: 'render', status: 503 });

    clock.advance(600);
    const served = await postGraphQL<Recommendations>(subgraph.graphqlUrl, RECOMMENDATIONS, variables);
    clock.advance(1);
    const tooOld = await postGraphQL<Recommendations>(subgraph.graphqlUrl, RECOMMENDATIONS, variables);

    expect(served.errors).toBeUndefined();
    expect(served.data).toEqual(first.data);
    expect(codes(tooOld)).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(tooOld.data).toEqual({ recommendations: null });
  });

  test('a 404 for an unknown experience is not cached', async () => {
    const variables = { experienceId: 'IL_doesNotExist0000000000', domain: 'dailyglobe.example' };
    const responses = [
      await postGraphQL<Recommendations>(subgraph.graphqlUrl, RECOMMENDATIONS, variables),
      await postGraphQL<Recommendations>(subgraph.graphqlUrl, RECOMMENDATIONS, variables),
    ];
    expect(responses.flatMap(codes)).toEqual(['NOT_FOUND', 'NOT_FOUND']);
    expect((await readStats(emulator)).render).toEqual({ count: 2, distinct: 1 });
  });
});

describe('circuit breaker', () => {
  test('opens after repeated failures, fails fast or serves stale while open, and closes after the cool-down', async () => {
    const events: UpstreamEvent[] = [];
    const clock = new FakeClock();
    const subgraph = await subgraphWith({
      protection: { now: clock.now, breaker: { cooldownSeconds: 0.2 } },
      observer: recordEvents(events),
    });
    const mostRead = experience('mostRead');
    const ask = (domain: string) =>
      postGraphQL<Recommendations>(subgraph.graphqlUrl, RECOMMENDATIONS, { experienceId: mostRead.id, domain });
    const warm = await ask('dailyglobe.example');
    clock.advance(300);
    await addFault(emulator, { target: 'render', status: 500 });

    const failures = [];
    for (const domain of ['a.example', 'b.example', 'c.example', 'd.example', 'e.example']) failures.push(await ask(domain));
    await resetStats(emulator);
    const cold = await ask('f.example');
    const cached = await ask('dailyglobe.example');

    expect(failures.flatMap(codes)).toEqual(Array(5).fill('UPSTREAM_UNAVAILABLE'));
    expect(codes(cold)).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(cold.errors?.[0].message).toMatch(/cool-down/);
    expect(cached.data).toEqual(warm.data);
    expect((await readStats(emulator)).render.count).toBe(0);

    await clearFaults(emulator);
    // The breaker's cool-down (0.2 s) runs on the call path's clock.
    clock.advance(0.2);
    const recovered = await ask('g.example');
    expect(recovered.errors).toBeUndefined();
    expect(events.flatMap((event) => (event.type === 'breaker' ? [event.state] : []))).toEqual(['open', 'half_open', 'closed']);
  });

  test('answers about the request (404) never open it', async () => {
    const subgraph = await subgraphWith({ protection: { breaker: { cooldownSeconds: 60 } } });
    const unknown = { experienceId: 'IL_doesNotExist0000000000', domain: 'dailyglobe.example' };
    for (let call = 0; call < 6; call += 1) await postGraphQL(subgraph.graphqlUrl, RECOMMENDATIONS, unknown);
    const mostRead = experience('mostRead');
    const after = await postGraphQL<Recommendations>(subgraph.graphqlUrl, RECOMMENDATIONS, {
      experienceId: mostRead.id,
      domain: mostRead.domain,
    });
    expect(after.errors).toBeUndefined();
    expect((await readStats(emulator)).render.count).toBe(7);
  });
});

describe('the realistic profile (EMULATOR_REPORTING_RATE_PER_MINUTE=1)', () => {
  let realistic: RunningEmulator;
  beforeAll(async () => {
    realistic = await startSmallEmulator({ rates: { reportingPerMinute: 1 } });
  });
  afterAll(async () => {
    await realistic?.close();
  });
  beforeEach(async () => {
    // A minute of emulator time refills its budget between tests.
    await advanceClock(realistic, 60);
    await resetStats(realistic);
  });

  test('after warm-up, repeated dashboards answer from the cache; a cold one fails fast with retryAfter, unsent', async () => {
    const subgraph = await startSubgraph(realistic, {
      protection: { governor: { reportingPerMinute: 1, signinPerMinute: 20, renderPerMinute: 6_000, queueTimeoutMs: 2_000 } },
    });
    opened.push(subgraph);

    const warm = await postGraphQL<Dashboard>(subgraph.graphqlUrl, DASHBOARD, { query: days(7) });
    const repeated = await Promise.all([1, 2, 3].map(() => postGraphQL<Dashboard>(subgraph.graphqlUrl, DASHBOARD, { query: days(7) })));
    const cold = await postGraphQL<Dashboard>(subgraph.graphqlUrl, DASHBOARD, { query: days(6) });

    expect(warm.errors).toBeUndefined();
    expect(repeated.map((response) => response.data)).toEqual([warm.data, warm.data, warm.data]);
    expect(codes(cold)).toEqual(['UPSTREAM_RATE_LIMITED']);
    expect(cold.errors?.[0].extensions?.retryAfter).toBe(RATE_WINDOW_MS / 1000);
    expect((await readStats(realistic)).dashboard).toEqual({ count: 1, distinct: 1 });
  });

  test('with a budget set too high, the first upstream 429 pauses the budget for everyone, and stale answers keep being served', async () => {
    const clock = new FakeClock();
    const cache = { renderTtlSeconds: 10, dashboardTtlSeconds: 10, staleIfErrorSeconds: 600 };
    const subgraph = await startSubgraph(realistic, { protection: { now: clock.now, cache } });
    opened.push(subgraph);

    const warm = await postGraphQL<Dashboard>(subgraph.graphqlUrl, DASHBOARD, { query: days(7) });
    const limited = await postGraphQL<Dashboard>(subgraph.graphqlUrl, DASHBOARD, { query: days(5) });
    const refused = await postGraphQL<Dashboard>(subgraph.graphqlUrl, DASHBOARD, { query: days(4) });
    // Expired (past twice its TTL) while the 60 s pause still holds: refused locally, so the stale answer is served.
    clock.advance(25);
    const stale = await postGraphQL<Dashboard>(subgraph.graphqlUrl, DASHBOARD, { query: days(7) });

    expect(warm.errors).toBeUndefined();
    expect(limited.errors?.[0].extensions).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED', upstream: { status: 429 } });
    expect(refused.errors?.[0].extensions).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED', retryAfter: expect.any(Number) });
    expect(refused.errors?.[0].extensions?.upstream).not.toHaveProperty('status');
    expect(stale.data).toEqual(warm.data);
    // warm-up and the one that met the 429; the others never left the subgraph.
    expect((await readStats(realistic)).dashboard.count).toBe(2);
  });
});
