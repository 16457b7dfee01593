/**
 * Memory cost of oversized upstream answers (issue 17 item 2): ten concurrent
 * 50 MB render.json answers, read by the subgraph's HTTP client with the
 * default cap (UPSTREAM_MAX_RESPONSE_BYTES, 8 MiB) and, for comparison, with
 * no cap (every body read whole, as before the cap). Prints the peak RSS
 * growth over the baseline and the longest event-loop stall of each run.
 *
 *   npm run bench:body-cap
 *
 * The fake upstream runs in this process but streams one reused 64 KiB chunk,
 * so its own memory stays flat; run order is capped first, then uncapped.
 */
import { DeadlineTicks } from '../src/upstream/transport/deadlines';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAgent } from '../src/upstream/transport/agent';
import { createHttpClient } from '../src/upstream/transport/httpClient';
import { UPSTREAM_CALL_DEFAULTS } from '../src/config';
import { buildUrl } from '../src/upstream/transport/url';

const ANSWER_BYTES = 50 * 1024 * 1024;
const CONCURRENT = 10;

function startHugeUpstream(): Promise<Server> {
  const chunk = Buffer.from(`{"url":"https://x.example/${'a'.repeat(64 * 1024 - 40)}","t":1},`);
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"type":"RecommenderExperienceResponse","recommendation":[');
    let written = 0;
    const writeMore = (): void => {
      while (written < ANSWER_BYTES && !response.destroyed) {
        written += chunk.length;
        if (!response.write(chunk)) {
          response.once('drain', writeMore);
          return;
        }
      }
      if (!response.destroyed) response.end('{}]}');
    };
    writeMore();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

interface RunResult {
  label: string;
  outcomes: string;
  peakRssGrowthMb: number;
  maxLoopStallMs: number;
  elapsedMs: number;
}

async function run(label: string, url: string, maxResponseBytes: number): Promise<RunResult> {
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  let maxStall = 0;
  let last = performance.now();
  const sampler = setInterval(() => {
    const now = performance.now();
    maxStall = Math.max(maxStall, now - last - 10);
    last = now;
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const agent = createAgent({ connections: CONCURRENT });
  const http = createHttpClient({
    deadlines: new DeadlineTicks(),
    dispatcher: agent,
    timeoutMs: 120_000,
    maxResponseBytes,
    maxRetryAfterSeconds: UPSTREAM_CALL_DEFAULTS.maxRetryAfterSeconds,
  });
  const started = performance.now();
  const results = await Promise.allSettled(
    Array.from({ length: CONCURRENT }, () =>
      http.requestJson({
        service: 'recommender',
        endpoint: '/render.json',
        url: buildUrl(url, '/render.json', { id: 'IL_a' }),
        method: 'GET',
      }),
    ),
  );
  const elapsedMs = performance.now() - started;
  peak = Math.max(peak, process.memoryUsage().rss);
  clearInterval(sampler);
  await agent.close();
  const rejected = results.filter((result) => result.status === 'rejected');
  const reason = rejected[0]?.status === 'rejected' ? String((rejected[0].reason as Error).message) : '';
  return {
    label,
    outcomes: `${results.length - rejected.length} parsed, ${rejected.length} refused${reason === '' ? '' : ` (${reason})`}`,
    peakRssGrowthMb: Math.round((peak - baseline) / (1024 * 1024)),
    maxLoopStallMs: Math.round(maxStall),
    elapsedMs: Math.round(elapsedMs),
  };
}

async function main(): Promise<void> {
  const server = await startHugeUpstream();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const capped = await run(
      `cap ${UPSTREAM_CALL_DEFAULTS.upstreamMaxResponseBytes} bytes (default)`,
      url,
      UPSTREAM_CALL_DEFAULTS.upstreamMaxResponseBytes,
    );
    const uncapped = await run('no cap (whole body read, as before)', url, Number.MAX_SAFE_INTEGER);
    console.log(`${CONCURRENT} concurrent ${ANSWER_BYTES / (1024 * 1024)} MB render.json answers, Node ${process.version}`);
    for (const result of [capped, uncapped]) {
      console.log(
        `${result.label}: peak RSS +${result.peakRssGrowthMb} MB, longest event-loop stall ${result.maxLoopStallMs} ms, ` +
          `${result.elapsedMs} ms; ${result.outcomes}`,
      );
    }
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

void main();
