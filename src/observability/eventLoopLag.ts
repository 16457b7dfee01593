import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ReadinessConfig } from '../config/readiness';

/** What readiness reads: whether the lag stayed above its limit long enough, and the last lag measured. */
export interface EventLoopLag {
  degraded(): boolean;
  /** The lag of the last sample, in milliseconds (rounded). */
  lastLagMs(): number;
  stop(): void;
}

/** How often the lag is sampled: each sample is the worst delay since the previous one. */
const SAMPLE_MS = 1_000;
/** The delay histogram's resolution: a timer this often, far cheaper than any work it measures. */
const RESOLUTION_MS = 20;

/**
 * Whether a series of lag samples stayed above a limit for a while: one dip
 * below the limit starts the count again, so a single slow burst (a GC
 * pause, a large fan-out) never turns readiness, a loop kept hot does.
 */
export class SustainedLag {
  private aboveSince: number | undefined;
  private last = 0;
  private lastAt = 0;

  constructor(private readonly settings: ReadinessConfig) {}

  /** The worst lag over the sample that ended at `at` (it began at `since`). */
  sample(lagMs: number, since: number, at: number): void {
    this.last = lagMs;
    if (this.settings.maxEventLoopLagMs > 0 && lagMs > this.settings.maxEventLoopLagMs) this.aboveSince ??= since;
    else this.aboveSince = undefined;
    this.lastAt = at;
  }

  degraded(): boolean {
    return this.aboveSince !== undefined && this.lastAt - this.aboveSince >= this.settings.eventLoopLagSeconds * 1000;
  }

  lastLagMs(): number {
    return Math.round(this.last);
  }
}

/**
 * Watches this process's event loop (node:perf_hooks' delay histogram, the
 * one prom-client's `nodejs_eventloop_lag_*` series read): each second, the
 * worst of the histogram's 99th percentile and the sampling timer's own
 * overrun (a loop blocked outright fires it late). The timer never keeps the
 * process alive.
 */
export function watchEventLoopLag(settings: ReadinessConfig, sampleMs = SAMPLE_MS): EventLoopLag {
  const verdict = new SustainedLag(settings);
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let since = Date.now();
  const timer = setInterval(() => {
    const at = Date.now();
    const overrunMs = at - since - sampleMs;
    verdict.sample(Math.max(histogram.percentile(99) / 1e6, overrunMs, 0), since, at);
    histogram.reset();
    since = at;
  }, sampleMs).unref();
  return {
    degraded: () => verdict.degraded(),
    lastLagMs: () => verdict.lastLagMs(),
    stop() {
      clearInterval(timer);
      histogram.disable();
    },
  };
}
