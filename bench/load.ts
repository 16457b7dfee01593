import { Agent, request } from 'undici';
import { summarize, type LatencySummary } from './stats';

export interface LoadOptions {
  /** Requests in flight at once (closed loop: each worker sends its next request when the last one ends). */
  concurrency: number;
  /** Total requests, warm-up excluded: bounded, so the load always stops by itself. */
  requests: number;
  warmup: number;
  /** Builds request i; the body, if any, is sent as JSON. */
  build: (i: number) => { url: string; method: 'GET' | 'POST'; body?: unknown };
  /** Extra request headers, the same on every request. */
  headers?: Record<string, string>;
}

export interface LoadResult extends LatencySummary {
  throughputPerSecond: number;
  errors: number;
}

/**
 * A small closed-loop load generator over loopback only. It is the same code
 * path for the subgraph and for the emulator, so their figures compare.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const agent = new Agent({ connections: options.concurrency, keepAliveTimeout: 30_000 });
  try {
    await drive(agent, options, options.warmup, () => undefined);
    const samples: number[] = [];
    let errors = 0;
    const started = performance.now();
    await drive(agent, options, options.requests, (ms, ok) => {
      samples.push(ms);
      if (!ok) errors++;
    });
    const elapsedSeconds = (performance.now() - started) / 1000;
    return { ...summarize(samples), throughputPerSecond: samples.length / elapsedSeconds, errors };
  } finally {
    await agent.close();
  }
}

async function drive(agent: Agent, options: LoadOptions, total: number, record: (ms: number, ok: boolean) => void): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const { url, method, body } = options.build(i);
      const headers = body === undefined ? { ...options.headers } : { 'content-type': 'application/json', ...options.headers };
      const t0 = performance.now();
      const response = await request(url, {
        dispatcher: agent,
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.body.text();
      record(performance.now() - t0, response.statusCode === 200 && !text.includes('"errors"'));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
}
