/**
 * The token-renewal race of issue 29 (1), over real HTTP: three subgraph
 * processes on one real redis-server, the emulator issuing 10-minute tokens
 * (EMULATOR_TOKEN_TTL_SECONDS=600). The emulator's clock jumps past the
 * token's lifetime five times while the replicas' clocks stay put, so the
 * replicas meet 401s on tokens that served calls before, some signed in by
 * another replica: expired tokens, never "a fresh token refused". Each expiry
 * costs exactly one sign-in, no operation fails, no replica backs off, and
 * the renewal counter counts every renewal. On the old code a replica read
 * the second 401 as a refused account and backed off for 60 s. The sign-in
 * counts are recorded in bench/README.md.
 */
import { DEMO_API_USER, type RunningEmulator } from '../../emulator';
import { call, startTestEmulator } from '../support/emulator';
import { postGraphQL, type GraphQLResponse } from '../support/federationGateway';
import { scrape, valueOf } from '../support/metricsText';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { startReplicas, type Replica } from '../support/subgraphReplica';

const TOKEN_TTL_S = 600;
/** Past the token's lifetime upstream (10 minutes), within its renewal time here: only a 401 tells. */
const JUMP_S = 11 * 60;
const JUMPS = 5;
const OPERATIONS = 60;

const DASHBOARD = `query Top($from: Int) {
  dashboard(query: { dates: { last: { number: 7, unit: DAY } }, groupBy: [URL], metrics: [PAGE_VIEWS_TOTAL], limit: 3, from: $from }) { total }
}`;

interface Dashboard {
  dashboard: { total: number }[] | null;
}
type Result = GraphQLResponse<Dashboard>;

interface Stats {
  signin: { count: number };
}

describeWithRedis('token renewal race: three replicas, one Redis, tokens that expire upstream', () => {
  let emulator: RunningEmulator;
  let redis: RedisServer;
  let replicas: Replica[] = [];

  beforeAll(async () => {
    [emulator, redis] = await Promise.all([
      startTestEmulator({ tokenTtlSeconds: TOKEN_TTL_S, rates: { reportingPerMinute: 100_000, signinPerMinute: 1_000 } }),
      startRedisServer(),
    ]);
    const env = {
      REPORTING_BASE_URL: emulator.url,
      RECOMMENDER_URL: emulator.url,
      REPORTING_EMAIL: DEMO_API_USER.email,
      REPORTING_PASSWORD: DEMO_API_USER.password,
      REPORTING_RATE_PER_MINUTE: '100000',
      SIGNIN_RATE_PER_MINUTE: '1000',
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: 'renewal-race:',
      // The first operations' dashboards stay fresh for the whole test: a replica that asks them calls no upstream.
      DASHBOARD_CACHE_TTL_SECONDS: '3600',
      // Generous: on a loaded 2-core machine a busy event loop must not look like a slow Redis.
      REDIS_TIMEOUT_MS: '1000',
    };
    replicas = await startReplicas(3, env);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await Promise.all([emulator?.close(), redis?.close()]);
  });

  const signIns = async () => (await call<Stats>(emulator, '/__emulator/stats')).body.signin.count;
  const resetStats = () => call(emulator, '/__emulator/stats', { method: 'DELETE' });
  const expireTokensUpstream = () => call(emulator, '/__emulator/clock', { body: { advanceSeconds: JUMP_S } });
  /**
   * `OPERATIONS` dashboard operations at once, over the three replicas in turn. After the first lapse one
   * replica sits each lapse out in turn: it asks dashboards the first operations fetched (answered from the
   * shared cache, no upstream call), so it keeps the token it had. At the next expiry it meets the 401 with a
   * token two sign-ins old, and Redis hands it the token another replica signed in for the lapse it sat out:
   * a token that served calls and has expired too. The others ask dashboards new to the lapse.
   */
  const burst = (lapse: number) =>
    Promise.all(
      Array.from({ length: OPERATIONS }, (_, index) => {
        const sitsOut = lapse > 0 && index % 3 === lapse % 3;
        return postGraphQL<Dashboard>(replicas[index % 3].url, DASHBOARD, { from: sitsOut ? index : lapse * 1_000 + index });
      }),
    );
  const failed = (results: Result[]) => results.filter((result) => result.errors !== undefined || !result.data?.dashboard);
  const signInState = async (replica: Replica) =>
    ((await (await fetch(new URL('/health/ready', replica.url))).json()) as { signIn?: unknown }).signIn;
  /** Every replica's renewal counter, both reasons, summed. */
  const renewals = async () => {
    let total = 0;
    for (const replica of replicas) {
      const families = await scrape(new URL('/metrics', replica.url).href);
      for (const reason of ['expiry', 'rejected']) total += valueOf(families, 'subgraph_upstream_token_renewals_total', { reason });
    }
    return total;
  };
  /** Replicas in sign-in backoff: none may be, while Redis holds a valid token. */
  const backingOff = async () =>
    (await Promise.all(replicas.map(signInState))).filter((state) => JSON.stringify(state) !== '{"state":"ok"}').length;

  test(`${JUMPS} expiries upstream, each followed by ${OPERATIONS} concurrent operations: 0 failed, one sign-in each, every renewal counted`, async () => {
    await resetStats();
    expect(failed(await burst(0))).toEqual([]);
    expect(await signIns()).toBe(1);

    const seen: { signIns: number; failed: number; messages: string[]; backingOff: number }[] = [];
    for (let jump = 1; jump <= JUMPS; jump += 1) {
      await expireTokensUpstream();
      await resetStats();
      const results = await burst(jump);
      const failures = failed(results);
      seen.push({
        signIns: await signIns(),
        failed: failures.length,
        messages: [...new Set(failures.map((result) => result.errors?.[0]?.message ?? 'no data'))],
        backingOff: await backingOff(),
      });
    }

    expect(seen).toEqual(Array.from({ length: JUMPS }, () => ({ signIns: 1, failed: 0, messages: [], backingOff: 0 })));
    await expect(Promise.all(replicas.map(signInState))).resolves.toEqual(replicas.map(() => ({ state: 'ok' })));
    await expect(renewals()).resolves.toBe(JUMPS);
  }, 120_000);
});
