/**
 * The token's life against the emulator over real HTTP, as the vendor's docs
 * now describe it: 30-minute tokens (EMULATOR_TOKEN_TTL_SECONDS=1800). The
 * emulator's clock is moved through its control API and the providers' clock
 * with it (or not, to make the upstream refuse a token we still trust).
 * Sign-ins are counted at the emulator; renewals through the providers'
 * onSignIn, wired as the subgraph wires it (renewalCounter). Run with one
 * in-process provider and with three replicas sharing Redis.
 */
import type { Redis } from 'ioredis';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { DEMO_API_USER, type RunningEmulator } from '../../emulator';
import { SharedTokenProvider } from '../../src/redis/upstream/sharedTokenProvider';
import { renewalCounter, watchSignInBackoff } from '../../src/auth/tokenMetrics';
import { metricsObserver } from '../../src/observability/metricsObserver';
import { TokenProvider, type TokenProviderOptions } from '../../src/auth/tokenProvider';
import { REPORTING_SIGN_IN_ERRORS } from '../../src/upstream/datasources/signInErrors';
import { ReportingAPI } from '../../src/upstream/datasources/reportingAPI';
import { createSignIn } from '../../src/upstream/datasources/signInRequest';
import type { DashboardQueryBody } from '../../src/kernel/wire';
import { formatError } from '../../src/graphql/errors';
import { createAgent } from '../../src/upstream/transport/agent';
import { retryingClient as createHttpClient } from '../support/httpPath';
import { reportingHttpPath } from '../../src/upstream/pipeline';
import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import { Metrics } from '../../src/observability/metrics/metrics';
import { closeRedisClient, createRedisClient } from '../../src/redis/connection/client';
import { awaitReady } from '../support/redisReady';
import { SharedRedis } from '../../src/redis/connection/sharedRedis';
import { Secret } from '../../src/redaction/secret';
import { call, startTestEmulator } from '../support/emulator';
import { valueOf } from '../support/metricsText';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { METRICS_DEFAULTS, REDIS_STATE_DEFAULTS } from '../../src/config';
import { SIGN_IN_BACKOFF_DEFAULTS, UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';

const THIRTY_MINUTES_S = 30 * 60;
const MINUTE = 60_000;

const QUERY: DashboardQueryBody = {
  dates: { last: { number: 7, dimension: 'day' } },
  filters: [],
  groupBy: [],
  metrics: ['pageViewsTotal'],
  order: { metric: 'pageViewsTotal', sort: 'DESC' },
};

type Stats = Record<'signin' | 'dashboard', { count: number }>;

const quietLogger = { info: () => {}, warn: () => {} };

describeWithRedis('30-minute tokens against the emulator', () => {
  let emulator: RunningEmulator;
  let server: RedisServer;
  const agent = createAgent({ connections: UPSTREAM_PATH_DEFAULTS.connectionsPerOrigin });
  const clients: Redis[] = [];
  let now: number;

  beforeAll(async () => {
    [emulator, server] = await Promise.all([
      startTestEmulator({ tokenTtlSeconds: THIRTY_MINUTES_S, rates: { reportingPerMinute: 100_000, signinPerMinute: 1_000 } }),
      startRedisServer(),
    ]);
  });
  afterAll(async () => {
    await agent.close();
    await Promise.all([emulator.close(), server.close()]);
  });
  beforeEach(async () => {
    now = Date.now();
    await call(emulator, '/__emulator/stats', { method: 'DELETE' });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => closeRedisClient(client)));
  });

  const stats = async () => (await call<Stats>(emulator, '/__emulator/stats')).body;
  const resetStats = () => call(emulator, '/__emulator/stats', { method: 'DELETE' });
  /** Moves the emulator's clock; `alsoOurs` moves the providers' clock the same way. */
  async function advance(ms: number, alsoOurs: boolean) {
    await call(emulator, '/__emulator/clock', { body: { advanceSeconds: ms / 1000 } });
    if (alsoOurs) now += ms;
  }

  interface Replica {
    tokens: TokenProvider;
    reporting: ReportingAPI;
    metrics: Metrics;
  }

  async function sharedRedis(prefix: string): Promise<SharedRedis> {
    const client = createRedisClient({ url: new Secret(server.url), keyPrefix: prefix, timeoutMs: 2_000 });
    clients.push(client);
    await awaitReady(client);
    return new SharedRedis({ ...REDIS_STATE_DEFAULTS.sharedRedis, client, logger: quietLogger, retryAfterMs: 0, timeoutMs: 2_000 });
  }

  const subjects: [string, number, (options: Omit<TokenProviderOptions, 'errors'>, prefix: string) => Promise<TokenProvider>][] = [
    ['one in-process provider', 1, async (options) => new TokenProvider({ ...options, errors: REPORTING_SIGN_IN_ERRORS })],
    [
      'three replicas sharing Redis',
      3,
      async (options, prefix) => new SharedTokenProvider({ ...options, redis: await sharedRedis(prefix), lockMs: 5_000, pollMs: 5 }),
    ],
  ];

  describe.each(subjects)('%s', (_name, count, make) => {
    async function cluster(password: string, prefix: string): Promise<Replica[]> {
      const http = createHttpClient({ dispatcher: agent, timeoutMs: 5_000 });
      const signIn = createSignIn({ baseUrl: emulator.url, email: DEMO_API_USER.email, password: new Secret(password), http });
      return Promise.all(
        Array.from({ length: count }, async () => {
          const metrics = new Metrics({ ...METRICS_DEFAULTS, processMetrics: false });
          const tokens = await make(
            {
              ...UPSTREAM_PATH_DEFAULTS.tokenRenewal,
              signInBackoff: SIGN_IN_BACKOFF_DEFAULTS,
              signIn,
              now: () => now,
              onSignIn: renewalCounter(metricsObserver(metrics)),
            },
            prefix,
          );
          watchSignInBackoff(metrics, tokens);
          return {
            tokens,
            metrics,
            reporting: new ReportingAPI({ baseUrl: emulator.url, http: reportingHttpPath(tokens, http), now: () => now }),
          };
        }),
      );
    }

    /** `operations` dashboard queries at once, spread over the replicas; resolves with each one's outcome. */
    const burst = (replicas: Replica[], operations: number) =>
      Promise.allSettled(Array.from({ length: operations }, (_, index) => replicas[index % replicas.length].reporting.query(QUERY)));

    async function renewals(replicas: Replica[]) {
      const counted = { expiry: 0, rejected: 0 };
      for (const replica of replicas) {
        const families = await scrapeRegistry(replica.metrics);
        counted.expiry += valueOf(families, 'subgraph_upstream_token_renewals_total', { reason: 'expiry' });
        counted.rejected += valueOf(families, 'subgraph_upstream_token_renewals_total', { reason: 'rejected' });
      }
      return counted;
    }

    test('renewed ahead of exp and once after a 401, with exactly one sign-in per lapse, counted as renewals', async () => {
      const replicas = await cluster(DEMO_API_USER.password, `lifecycle-${count}:`);
      const lapses: { signIns: number; dashboards: number; failed: number }[] = [];
      const lapse = async (move: () => Promise<void>) => {
        await move();
        await resetStats();
        const outcomes = await burst(replicas, 30);
        const { signin, dashboard } = await stats();
        lapses.push({ signIns: signin.count, dashboards: dashboard.count, failed: outcomes.filter((o) => o.status === 'rejected').length });
      };

      await lapse(async () => {}); // the first token
      await lapse(() => advance(26 * MINUTE, true)); // within its life: no sign-in
      await lapse(() => advance(1.5 * MINUTE, true)); // 27.5 of 30 minutes: renewed ahead of exp, never refused
      await lapse(() => advance(31 * MINUTE, false)); // expired upstream while we still trust it: one 401 each, one sign-in

      expect(lapses.slice(0, 3)).toEqual([
        { signIns: 1, dashboards: 30, failed: 0 },
        { signIns: 0, dashboards: 30, failed: 0 },
        { signIns: 1, dashboards: 30, failed: 0 },
      ]);
      expect(lapses[3]).toMatchObject({ signIns: 1, failed: 0 });
      // Each query that met the 401 was repeated once, with the new token.
      expect(lapses[3].dashboards).toBeGreaterThan(30);
      expect(lapses[3].dashboards).toBeLessThanOrEqual(60);
      await expect(renewals(replicas)).resolves.toEqual({ expiry: 1, rejected: 1 });
    });

    test('refused credentials: 30 operations make 1 sign-in attempt, each fails at once with UPSTREAM_UNAUTHENTICATED and retryAfter', async () => {
      const replicas = await cluster('not-the-password', `refused-${count}:`);
      const errors: unknown[] = [];
      for (let operation = 0; operation < 30; operation += 1) {
        errors.push(await replicas[operation % count].reporting.query(QUERY).catch((error: unknown) => error));
      }

      expect((await stats()).signin.count).toBe(1);
      const shown = errors.map((error) => {
        if (!(error instanceof UpstreamError)) throw error;
        return formatError({ message: error.message }, error, { production: true });
      });
      expect(new Set(shown.map((formatted) => formatted.extensions?.code))).toEqual(new Set(['UPSTREAM_UNAUTHENTICATED']));
      expect(shown.every((formatted) => typeof formatted.extensions?.retryAfter === 'number')).toBe(true);
      expect(JSON.stringify(shown)).not.toContain('not-the-password');
      const gauge = valueOf(await scrapeRegistry(replicas[0].metrics), 'subgraph_upstream_signin_backoff_seconds');
      expect(gauge).toBeGreaterThan(0);
      expect(gauge).toBeLessThanOrEqual(60);
      expect(replicas[count - 1].tokens.signInState()).toMatchObject({ state: 'backing_off', reason: 'refused' });
    });
  });
});

/** The registry's text, parsed as a scrape would. */
async function scrapeRegistry(metrics: Metrics) {
  return parsePrometheusTextFormat(await metrics.registry.metrics());
}
