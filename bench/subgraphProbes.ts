import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { SubgraphProcess } from './processes';
import { summarize, type LatencySummary } from './stats';

/** The sum of a metric's series (every line starting with `prefix` and holding each of `labels`) on the subgraph's /metrics. */
export async function scrapeSum(subgraph: SubgraphProcess, prefix: string, ...labels: string[]): Promise<number> {
  const text = await (await fetch(subgraph.url.replace(/\/graphql$/, '/metrics'))).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(prefix) && labels.every((label) => line.includes(label)))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

/** A probe answered within PROBE_TIMEOUT_MS or not: a probe with no answer counts at the timeout. */
const PROBE_TIMEOUT_MS = 5_000;

export interface HealthProbes extends LatencySummary {
  /** Probes with no 200 within PROBE_TIMEOUT_MS (counted at the timeout in the latencies). */
  unanswered: number;
}

/*
 * The probes run in a worker thread: the bench's own event loop (hundreds of
 * sockets in a flood) must not delay a probe and make the subgraph look slow.
 * A probe starts every `everyMs` whether the last one answered or not, as a
 * load balancer's health check does.
 */
const PROBE_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const latencies = [];
let unanswered = 0;
const inFlight = new Set();
const probe = async () => {
  const started = performance.now();
  try {
    const response = await fetch(workerData.url, { signal: AbortSignal.timeout(workerData.timeoutMs) });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(String(response.status));
    latencies.push(performance.now() - started);
  } catch {
    unanswered += 1;
    latencies.push(workerData.timeoutMs);
  }
};
const timer = setInterval(() => {
  const running = probe().finally(() => inFlight.delete(running));
  inFlight.add(running);
}, workerData.everyMs);
parentPort.on('message', async () => {
  clearInterval(timer);
  await Promise.all(inFlight);
  parentPort.postMessage({ latencies, unanswered });
});
`;

/** Probes the subgraph's /health/live every `everyMs` until `stop`, which gives the latencies' summary. */
export function startHealthProbes(subgraph: SubgraphProcess, everyMs = 250): { stop(): Promise<HealthProbes> } {
  const url = subgraph.url.replace(/\/graphql$/, '/health/live');
  const worker = new Worker(PROBE_WORKER, { eval: true, workerData: { url, everyMs, timeoutMs: PROBE_TIMEOUT_MS } });
  return {
    stop: async () => {
      worker.postMessage('stop');
      const [result] = (await once(worker, 'message')) as [{ latencies: number[]; unanswered: number }];
      await worker.terminate();
      return { ...summarize(result.latencies), unanswered: result.unanswered };
    },
  };
}

/** The probes' figures as one Markdown cell: p50 / p99 / max, and the probes with no answer. */
export function fmtProbes(probes: HealthProbes): string {
  return `${probes.p50.toFixed(1)} / ${probes.p99.toFixed(1)} / ${probes.max.toFixed(1)} ms (${probes.count} probes, ${probes.unanswered} unanswered in ${PROBE_TIMEOUT_MS / 1000} s)`;
}
