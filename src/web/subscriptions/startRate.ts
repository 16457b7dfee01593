import type { WebSocket } from 'ws';

/**
 * SUBSCRIPTION_STARTS_PER_SECOND per socket: a token bucket (GCRA: one
 * number per socket, the instant its bucket would be full again) with a
 * burst of `burst` starts. Hand-written because it is a few lines on a
 * socket's lifetime (a WeakMap: nothing to forget on close); the governor's
 * buckets (src/upstream/stores/rateStore.ts) are per minute and async, for
 * the vendor's budget.
 */
export class StartRate {
  private readonly fullAt = new WeakMap<WebSocket, number>();
  private readonly intervalMs: number;

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.intervalMs = 1000 / perSecond;
  }

  /** Takes one start for `socket`: undefined when it may start, else the milliseconds until it may. */
  take(socket: WebSocket): number | undefined {
    const now = this.now();
    const next = Math.max(this.fullAt.get(socket) ?? now, now) + this.intervalMs;
    const waitMs = next - this.burst * this.intervalMs - now;
    if (waitMs > 0) return waitMs;
    this.fullAt.set(socket, next);
    return undefined;
  }
}
