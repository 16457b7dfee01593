import { startRedisServer, type RedisServer } from '../test/support/redisServer';
import {
  EDITORS,
  LONG_TAIL_SHARE,
  POPULAR,
  SEED,
  WARM_MS,
  WIDGETS,
  articles,
  errorTally,
  retryRow,
  row,
  runLoad,
  scrapeSum,
} from './newsroomLoad';
import { demoUpstreamEnv, type EmulatorProcess, spawnEmulator, spawnSubgraph } from './processes';
import { readStats, resetStats } from './upstreamClient';

/*
 * `npm run bench -- newsroom` (issue 21): a newsroom on one dashboard query a
 * minute. The emulator's realistic profile (1 query a minute with
 * Retry-After, 500 rows, ad metrics outside the plan); the subgraph on its
 * real-host defaults (no rate variable set). EDITORS editors each open an
 * article page every 10 s (its panel asks `Article.analytics`, default window,
 * through `_entities` as a router sends it), picking among the POPULAR most-read
 * articles with skewed popularity (Zipf), 10 % of them outside the 500 most
 * read; WIDGETS homepage widgets ask `topArticles(limit: 10)` every 5 s.
 * NEWSROOM_BENCH_SECONDS (default 300), once with one replica, once with three
 * sharing Redis.
 */

async function scenario(
  emulator: EmulatorProcess,
  urls: string[],
  replicaCount: number,
  redis: RedisServer | undefined,
  seconds: number,
): Promise<string> {
  const env = {
    ...demoUpstreamEnv(emulator.url),
    NODE_ENV: 'production',
    // Open on purpose: a bench (or test) is the only caller.
    CALLER_AUTH: 'none',
    LOG_LEVEL: 'error',
    ...(redis === undefined ? {} : { REDIS_URL: redis.url, REDIS_KEY_PREFIX: `newsroom-${Date.now()}:` }),
  };
  const replicas = await Promise.all(Array.from({ length: replicaCount }, () => spawnSubgraph(env)));
  try {
    await resetStats(emulator.url);
    const watch = watchQueries(emulator.url);
    const asks = await runLoad(replicas, urls, seconds, { retryAtRetryAfter: true });
    // From the first query to the last: n queries are n − 1 intervals (the minutes before the first spent nothing).
    const { queries, firstToLastMs } = await watch.stop();
    const everySeconds = queries < 2 ? undefined : firstToLastMs / 1000 / (queries - 1);
    const rateLimited = await scrapeSum(replicas, 'subgraph_upstream_rate_limited_total');
    const answeredSum = await scrapeSum(replicas, 'subgraph_analytics_asks_per_query_sum');
    const answeredCount = await scrapeSum(replicas, 'subgraph_analytics_asks_per_query_count');
    const editors = asks.filter((ask) => ask.kind === 'editor');
    return [
      `#### ${replicaCount} replica${replicaCount === 1 ? '' : 's'}${redis === undefined ? '' : ' on Redis'}, ${seconds} s`,
      '',
      '| asks | count | answered, first 2 min | answered, after | p50 wait after | p95 wait after |',
      '|---|---:|---:|---:|---:|---:|',
      row('editors (all)', editors),
      row(
        'editors, top 200',
        editors.filter((ask) => !ask.longTail),
      ),
      row(
        'editors, long tail',
        editors.filter((ask) => ask.longTail),
      ),
      row(
        'widgets',
        asks.filter((ask) => ask.kind === 'widget'),
      ),
      '',
      `Vendor dashboard queries: ${queries}, ${(firstToLastMs / 1000).toFixed(0)} s from the first to the last ` +
        `(${everySeconds === undefined ? 'n/a' : `one every ${everySeconds.toFixed(1)} s, ${(60 / everySeconds).toFixed(2)} a minute`}); ` +
        `upstream 429s: ${rateLimited}; asks answered per vendor query: ${queries === 0 ? 'n/a' : (asks.filter((ask) => ask.ok).length / queries).toFixed(1)} ` +
        `(of which waited for their unit: ${answeredSum} asks over ${answeredCount} queries).`,
      '',
      `Errors of unanswered asks after 2 min: ${errorTally(asks.filter((ask) => ask.atMs >= WARM_MS && !ask.ok))}.`,
      '',
      'The long tail after 2 min, each refused ask retried once at its `retryAfter` (the retries are not in the table above):',
      '',
      '| asks | count | answered at once | retried | answered on the first retry | answered by the first retry | median retryAfter |',
      '|---|---:|---:|---:|---:|---:|---:|',
      retryRow(
        'editors, long tail',
        editors.filter((ask) => ask.longTail),
      ),
      '',
      `Errors of the retries: ${errorTally(editors.flatMap((ask) => (ask.atMs >= WARM_MS && ask.retry !== undefined && !ask.retry.ok ? [ask.retry] : [])))}.`,
      '',
    ].join('\n');
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop()));
  }
}

/**
 * The emulator's dashboard queries, read every 250 ms until `stop`: how many, and the time from the first to the
 * last (each seen within 250 ms of its arrival).
 */
function watchQueries(emulatorUrl: string): { stop(): Promise<{ queries: number; firstToLastMs: number }> } {
  let stopped = false;
  let queries = 0;
  let firstAt = 0;
  let lastAt = 0;
  const watching = (async () => {
    while (!stopped) {
      const count = (await readStats(emulatorUrl)).dashboard.count;
      if (count > queries) {
        lastAt = performance.now();
        if (queries === 0) firstAt = lastAt;
        queries = count;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await watching;
      const count = (await readStats(emulatorUrl)).dashboard.count;
      if (count > queries) [queries, lastAt] = [count, performance.now()];
      return { queries, firstToLastMs: lastAt - firstAt };
    },
  };
}

async function main(): Promise<void> {
  const seconds = Number(process.env.NEWSROOM_BENCH_SECONDS ?? 300);
  const urls = articles();
  process.stdout.write(
    `\n### Newsroom (issue 21): ${EDITORS} editors on ${POPULAR} articles (+${LONG_TAIL_SHARE * 100} % long tail), ${WIDGETS} widgets\n\n`,
  );
  const emulator = await spawnEmulator({ EMULATOR_PROFILE: 'realistic', EMULATOR_SEED: String(SEED) });
  const redis = await startRedisServer();
  try {
    process.stdout.write(await scenario(emulator, urls, 1, undefined, seconds));
    // The vendor's minute refills before the next run: it starts as cold as the first.
    await new Promise((resolve) => setTimeout(resolve, 65_000));
    process.stdout.write(await scenario(emulator, urls, 3, redis, seconds));
  } finally {
    await Promise.all([emulator.stop(), redis.close()]);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
