import type { DeadlineTick, DeadlineTicks } from './deadlines';

/**
 * The time allowed one upstream call (UPSTREAM_TIMEOUT_MS), shared by its
 * attempts: the retry stage makes one per call and hands it down with each
 * attempt. Its clock starts when the first attempt is sent (the transport
 * asks for its signal), so a wait for the governor's first grant is not part
 * of the call's time, and every later attempt gets only what is left.
 */
export class CallDeadline {
  private started: { signal: DeadlineTick; endsAt: number } | undefined;

  constructor(
    readonly timeoutMs: number,
    private readonly ticks: DeadlineTicks,
  ) {}

  /** The signal that aborts the call's attempts at its deadline; the first ask starts the clock. */
  signal(): DeadlineTick {
    this.started ??= { signal: this.ticks.signalFor(this.timeoutMs), endsAt: performance.now() + this.timeoutMs };
    return this.started.signal;
  }

  /** What is left of that time: all of it before the first attempt is sent. */
  remainingMs(): number {
    return this.started === undefined ? this.timeoutMs : this.started.endsAt - performance.now();
  }
}
