/**
 * `npm run bench` (after bench/run.ts): three replicas with and without a
 * shared Redis. Sign-ins across a token expiry, upstream calls of a mixed
 * supergraph-like traffic, and the cost of a cache hit through Redis against
 * the in-process store, interleaved and repeated.
 */
import { Redis } from 'ioredis';
import { Secret } from '../src/redaction/secret';
import { RedisAnswerStore } from '../src/redis/upstream/redisAnswerStore';
import { SharedRedis } from '../src/redis/connection/sharedRedis';
import { MemoryAnswerStore } from '../src/upstream/stores/memoryAnswerStore';
import { createRedisClient, waitUntilReady } from '../src/redis/connection/client';
import { startRedisServer, type RedisServer } from '../test/support/redisServer';
import { runLoad } from './load';
import { demoUpstreamEnv, type EmulatorProcess, spawnEmulator, spawnSubgraph, type SubgraphProcess } from './processes';
import { summarize } from './stats';
import { advanceClock, readStats, resetStats, signIn, topUrls } from './upstreamClient';
import { REDIS_STATE_DEFAULTS } from '../src/config';
import { UPSTREAM_PATH_DEFAULTS } from '../src/config/upstreamPath';

const FIFTEEN_DAYS_S = 15 * 24 * 3600;
const REPETITIONS = 3;

const DASHBOARD = (metric: string) =>
  `{ dashboard(query: { dates: { last: { number: 7, unit: DAY } }, groupBy: [URL], metrics: [${metric}], limit: 5 }) { total } }`;
const DASHBOARDS = ['PAGE_VIEWS_TOTAL', 'UNIQUE_USERS', 'TOTAL_DURATION'].map(DASHBOARD);

async function main(): Promise<void> {
  const emulator = await spawnEmulator({
    EMULATOR_SCALE: '0.2',
    EMULATOR_REPORTING_RATE_PER_MINUTE: '1000000',
    EMULATOR_RENDER_RATE_PER_MINUTE: '1000000',
  });
  const redis = await startRedisServer();
  try {
    console.log(
      `\n## Replicas (3 processes), with and without Redis — Node ${process.version}, ${new Date().toISOString().slice(0, 10)}\n`,
    );
    // Mixed traffic first: the sign-in measure moves the emulator's clock 15 days on.
    await upstreamCallsOfMixedTraffic(emulator, redis);
    await signInsAcrossExpiry(emulator, redis);
    await cacheHitCost(redis);
    await cachedOperationCost(emulator, redis);
  } finally {
    await Promise.all([emulator.stop(), redis.close()]);
  }
}

function replicaEnv(emulator: EmulatorProcess, redis: RedisServer | undefined, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...demoUpstreamEnv(emulator.url),
    REPORTING_RATE_PER_MINUTE: '1000000',
    RENDER_RATE_PER_MINUTE: '1000000',
    SIGNIN_RATE_PER_MINUTE: '20',
    NODE_ENV: 'production',
    // Open on purpose: a bench (or test) is the only caller.
    CALLER_AUTH: 'none',
    LOG_LEVEL: 'warn',
    ...(redis === undefined ? {} : { REDIS_URL: redis.url, REDIS_KEY_PREFIX: `bench-${Date.now()}:` }),
    ...extra,
  };
}

async function withReplicas<T>(env: Record<string, string>, run: (replicas: SubgraphProcess[]) => Promise<T>): Promise<T> {
  const replicas = await Promise.all([spawnSubgraph(env), spawnSubgraph(env), spawnSubgraph(env)]);
  try {
    return await run(replicas);
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop()));
  }
}

/** 10,000 dashboard operations over 3 replicas (answer cache off, so each one needs the token); the emulator's clock passes the token's expiry halfway. */
async function signInsAcrossExpiry(emulator: EmulatorProcess, redis: RedisServer): Promise<void> {
  const rows: string[] = [];
  for (const shared of [false, true]) {
    const env = replicaEnv(emulator, shared ? redis : undefined, { DASHBOARD_CACHE_TTL_SECONDS: '0' });
    const counts = await withReplicas(env, async (replicas) => {
      const half = (offset: number) =>
        runLoad({
          concurrency: 24,
          requests: 5_000,
          warmup: 0,
          build: (i) => ({ url: replicas[(Math.floor(i / 3) + offset) % 3].url, method: 'POST', body: { query: DASHBOARDS[i % 3] } }),
        });
      await resetStats(emulator.url);
      const before = await half(0);
      const firstLifetime = (await readStats(emulator.url)).signin.count;
      await advanceClock(emulator.url, FIFTEEN_DAYS_S);
      const after = await half(1);
      const total = (await readStats(emulator.url)).signin.count;
      return { firstLifetime, secondLifetime: total - firstLifetime, errors: before.errors + after.errors };
    });
    rows.push(
      `| ${shared ? 'Redis (shared token)' : 'no Redis (today)'} | ${counts.firstLifetime} | ${counts.secondLifetime} | ${counts.errors} |`,
    );
  }
  console.log(
    '### Sign-ins, 10,000 dashboard operations over 3 replicas, the token expiring upstream halfway (target: 1 per token lifetime)\n',
  );
  console.log('| setup | sign-ins, first token | sign-ins after expiry | failed operations |\n|---|---|---|---|');
  console.log(`${rows.join('\n')}\n`);
}

/** 4,000 operations, 40 in flight, each one of 3 dashboards plus recommendations for one of 50 readers and related articles for one of 30 URLs. */
async function upstreamCallsOfMixedTraffic(emulator: EmulatorProcess, redis: RedisServer): Promise<void> {
  const experience = emulator.experiences.find((e) => e.rankingProfile === 'similar') ?? emulator.experiences[0];
  const articles = await topUrls(emulator.url, await signIn(emulator.url), experience.domain, 30);
  const operation = (i: number) => `{
    dashboard(query: { dates: { last: { number: 7, unit: DAY } }, groupBy: [URL], metrics: [${['PAGE_VIEWS_TOTAL', 'UNIQUE_USERS', 'TOTAL_DURATION'][i % 3]}], limit: 5 }) { total }
    recommendations(experienceId: "${experience.id}", domain: "${experience.domain}", clientId: "bench-reader-${i % 50}") { url }
    _entities(representations: [{ __typename: "Article", url: "${articles[i % articles.length]}" }]) { ... on Article { related(experienceId: "${experience.id}") { url } } }
  }`;
  const setups: { name: string; replicas: number; shared: boolean }[] = [
    { name: '1 replica', replicas: 1, shared: false },
    { name: '3 replicas, no Redis', replicas: 3, shared: false },
    { name: '3 replicas, Redis', replicas: 3, shared: true },
  ];
  const rows: string[] = [];
  for (const setup of setups) {
    const env = replicaEnv(emulator, setup.shared ? redis : undefined);
    const replicas = await Promise.all(Array.from({ length: setup.replicas }, () => spawnSubgraph(env)));
    try {
      await resetStats(emulator.url);
      await assertAnswers(replicas[0].url, operation(0));
      const result = await runLoad({
        concurrency: 40,
        requests: 4_000,
        warmup: 0,
        // Replica by groups of 3, so no replica always gets the same dashboard (i % 3) or the same articles (i % 30).
        build: (i) => ({ url: replicas[Math.floor(i / 3) % replicas.length].url, method: 'POST', body: { query: operation(i) } }),
      });
      const stats = await readStats(emulator.url);
      rows.push(
        `| ${setup.name} | ${result.count} | ${result.errors} | ${stats.dashboard.count} (${stats.dashboard.distinct} distinct) | ${stats.render.count} (${stats.render.distinct} distinct) | ${stats.signin.count} |`,
      );
    } finally {
      await Promise.all(replicas.map((replica) => replica.stop()));
    }
  }
  console.log(
    '### Upstream calls, mixed traffic (3 dashboards, 50 readers, 30 articles), 4,000 operations, 40 in flight (target: 3 replicas = 1 replica)\n',
  );
  console.log('| setup | operations | errors | dashboard calls | render.json calls | sign-ins |\n|---|---|---|---|---|---|');
  console.log(`${rows.join('\n')}\n`);
}

/** One answer of a realistic size, read back through each store; the stores interleave in rounds of 2,000 reads, 3 times. */
async function cacheHitCost(redisServer: RedisServer): Promise<void> {
  const client = createRedisClient({ url: new Secret(redisServer.url), keyPrefix: 'bench:', timeoutMs: 1_000 });
  const shared = new SharedRedis({ ...REDIS_STATE_DEFAULTS.sharedRedis, client, logger: { info() {}, warn() {} }, timeoutMs: 1_000 });
  await waitUntilReady(client, 5_000);
  const memory = new MemoryAnswerStore(UPSTREAM_PATH_DEFAULTS.answerStore);
  const viaRedis = new RedisAnswerStore(shared, new MemoryAnswerStore(UPSTREAM_PATH_DEFAULTS.answerStore), {
    ...REDIS_STATE_DEFAULTS.answerFill,
    fillWaitMs: 0,
  });
  const entry = {
    value: Array.from({ length: 10 }, (_, i) => ({
      url: `https://dailyglobe.example/a/${i}`,
      title: `Title ${i}`,
      authors: ['A'],
      sections: ['World'],
    })),
    fetchedAt: Date.now(),
  };
  await Promise.all([memory.set('k', entry, 60_000), viaRedis.set('k', entry, 60_000)]);
  const samples = { memory: [] as number[], redis: [] as number[] };
  for (let round = 0; round < REPETITIONS; round++) {
    for (const [name, store] of [
      ['memory', memory],
      ['redis', viaRedis],
    ] as const) {
      for (let i = 0; i < 2_000; i++) {
        const t0 = performance.now();
        await store.get('k');
        samples[name].push((performance.now() - t0) * 1000);
      }
    }
  }
  const m = summarize(samples.memory);
  const r = summarize(samples.redis);
  console.log(
    `### Cost of a cache hit: RedisAnswerStore.get vs the in-process MemoryAnswerStore.get (${REPETITIONS} interleaved rounds of 2,000)\n`,
  );
  console.log('| store | p50 | p99 |\n|---|---|---|');
  console.log(`| in process | ${m.p50.toFixed(1)} µs | ${m.p99.toFixed(1)} µs |`);
  console.log(`| Redis (loopback) | ${r.p50.toFixed(1)} µs | ${r.p99.toFixed(1)} µs |`);
  console.log(`| ratio Redis / in process | ${(r.p50 / m.p50).toFixed(0)}× | ${(r.p99 / m.p99).toFixed(0)}× |\n`);
  await quit(client);
}

/** A dashboard answered from the cache through a replica with Redis and one without, interleaved rounds of 500 operations, one at a time. */
async function cachedOperationCost(emulator: EmulatorProcess, redis: RedisServer): Promise<void> {
  const [inProcess, shared] = await Promise.all([
    spawnSubgraph(replicaEnv(emulator, undefined)),
    spawnSubgraph(replicaEnv(emulator, redis)),
  ]);
  try {
    const samples = { inProcess: [] as number[], shared: [] as number[] };
    for (const replica of [inProcess, shared]) await assertAnswers(replica.url, DASHBOARDS[0]);
    for (let round = 0; round < REPETITIONS; round++) {
      for (const [name, replica] of [
        ['inProcess', inProcess],
        ['shared', shared],
      ] as const) {
        for (let i = 0; i < 500; i++) {
          const t0 = performance.now();
          await assertAnswers(replica.url, DASHBOARDS[0]);
          samples[name].push((performance.now() - t0) * 1000);
        }
      }
    }
    const m = summarize(samples.inProcess);
    const r = summarize(samples.shared);
    console.log(`### A cached dashboard operation end to end (HTTP, one at a time, ${REPETITIONS} interleaved rounds of 500)\n`);
    console.log('| replica | p50 | p99 |\n|---|---|---|');
    console.log(`| answer cache in process | ${m.p50.toFixed(0)} µs | ${m.p99.toFixed(0)} µs |`);
    console.log(`| answer cache in Redis | ${r.p50.toFixed(0)} µs | ${r.p99.toFixed(0)} µs |`);
    console.log(`| ratio Redis / in process | ${(r.p50 / m.p50).toFixed(2)} | ${(r.p99 / m.p99).toFixed(2)} |\n`);
  } finally {
    await Promise.all([inProcess.stop(), shared.stop()]);
  }
}

/** A benchmark of failing operations measures nothing: stop with the first error instead. */
async function assertAnswers(url: string, query: string): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  const text = await response.text();
  if (response.status !== 200 || text.includes('"errors"'))
    throw new Error(`the operation failed: ${response.status} ${text.slice(0, 500)}`);
}

async function quit(client: Redis): Promise<void> {
  await client.quit().catch(() => client.disconnect());
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
