/**
 * `npm run bench:redis-stall`: what a stalled Redis costs an operation, under
 * concurrent load. A real `redis-server` (the test suites' helper), one
 * replica's SharedRedis with REDIS_TIMEOUT_MS = 250, and CONCURRENCY workers
 * each running "operations" back to back for RUN_MS: every operation does
 * what an uncached upstream call does with Redis (answer read, fill claim,
 * budget reservation, answer write), each on its own key. In the middle,
 * Redis is stalled with `CLIENT PAUSE <STALL_MS> ALL` from another
 * connection. Printed: the Redis part of each operation (its whole
 * duration: nothing else runs), before, during and after the stall; the
 * README's promise is that "during" stays at most REDIS_TIMEOUT_MS plus
 * event-loop noise.
 */
import { createRedisClient, waitUntilReady } from '../src/redis/connection/client';
import { SharedRedis } from '../src/redis/connection/sharedRedis';
import { MemoryAnswerStore } from '../src/upstream/stores/memoryAnswerStore';
import { RedisAnswerStore } from '../src/redis/upstream/redisAnswerStore';
import { RedisRateStore } from '../src/redis/upstream/redisRateStore';
import { Secret } from '../src/redaction/secret';
import { startRedisServer } from '../test/support/redisServer';
import { fmt, summarize } from './stats';
import { REDIS_STATE_DEFAULTS } from '../src/config';
import { UPSTREAM_PATH_DEFAULTS } from '../src/config/upstreamPath';

const TIMEOUT_MS = 250;
const CONCURRENCY = 200;
const RUN_MS = 9_000;
const STALL_AT_MS = 3_000;
const STALL_MS = 3_000;

interface Sample {
  startedAtMs: number;
  durationMs: number;
}

async function main(): Promise<void> {
  const server = await startRedisServer();
  const config = { url: new Secret(server.url), keyPrefix: 'bench:', timeoutMs: TIMEOUT_MS };
  const client = createRedisClient(config);
  const admin = createRedisClient({ ...config, keyPrefix: '' });
  try {
    await Promise.all([waitUntilReady(client, 5_000), waitUntilReady(admin, 5_000)]);
    const redis = new SharedRedis({
      ...REDIS_STATE_DEFAULTS.sharedRedis,
      client,
      logger: { info: () => {}, warn: () => {} },
      timeoutMs: TIMEOUT_MS,
    });
    const answers = new RedisAnswerStore(redis, new MemoryAnswerStore(UPSTREAM_PATH_DEFAULTS.answerStore), {
      ...REDIS_STATE_DEFAULTS.answerFill,
      fillWaitMs: 5_000,
    });
    const budget = new RedisRateStore(redis, Date.now);
    const samples: Sample[] = [];
    const startMs = performance.now();
    let serial = 0;
    const operation = async () => {
      const key = `render:${serial++}`;
      const startedAtMs = performance.now() - startMs;
      await answers.get(key);
      const claim = await answers.claim(key);
      await budget.reserve('render:bench', 1_000_000, Date.now(), 0);
      if (claim.kind === 'claimed') await answers.set(key, { value: { key }, fetchedAt: Date.now() }, 60_000);
      samples.push({ startedAtMs, durationMs: performance.now() - startMs - startedAtMs });
    };
    // Each operation ends on an I/O turn, as a request does: local fallbacks answer in microtasks, which would otherwise starve the timers.
    const worker = async () => {
      while (performance.now() - startMs < RUN_MS) {
        await operation();
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const stall = (async () => {
      await new Promise((resolve) => setTimeout(resolve, STALL_AT_MS));
      await admin.call('CLIENT', 'PAUSE', String(STALL_MS), 'ALL');
    })();
    await Promise.all([stall, ...Array.from({ length: CONCURRENCY }, worker)]);
    report(samples);
  } finally {
    client.disconnect();
    admin.disconnect();
    await server.close();
  }
}

function report(samples: Sample[]): void {
  const phases: [string, (sample: Sample) => boolean][] = [
    ['before the stall', (s) => s.startedAtMs + s.durationMs < STALL_AT_MS],
    ['during the stall', (s) => s.startedAtMs < STALL_AT_MS + STALL_MS && s.startedAtMs + s.durationMs > STALL_AT_MS],
    ['after the stall', (s) => s.startedAtMs > STALL_AT_MS + STALL_MS],
  ];
  process.stdout.write(
    `### Redis stall: ${CONCURRENCY} concurrent operations, REDIS_TIMEOUT_MS ${TIMEOUT_MS}, CLIENT PAUSE ${STALL_MS} ms ALL\n\n`,
  );
  process.stdout.write('| phase | operations | p50 | p99 | max |\n|---|---|---|---|---|\n');
  for (const [name, inPhase] of phases) {
    const summary = summarize(samples.filter(inPhase).map((sample) => sample.durationMs));
    process.stdout.write(`| ${name} | ${summary.count} | ${fmt(summary.p50)} | ${fmt(summary.p99)} | ${fmt(summary.max)} |\n`);
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
