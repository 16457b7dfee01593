import { setMaxListeners } from 'node:events';

/**
 * Call deadlines shared by every call that ends within the same tick of
 * `resolutionMs`: one AbortController and one timer per tick instead of an
 * AbortController plus a setTimeout per call, which the profile showed on
 * the hot path. A deadline fires at the end of its tick, so a call gets its
 * full time and at most `resolutionMs` more.
 */
export class DeadlineTicks {
  private readonly ticks = new Map<number, AbortController>();

  constructor(
    private readonly resolutionMs = 5,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The signal that aborts once `timeoutMs` from now have passed; callers in the same tick share it. */
  signalFor(timeoutMs: number): AbortSignal {
    const tick = Math.ceil((this.now() + timeoutMs) / this.resolutionMs);
    return (this.ticks.get(tick) ?? this.open(tick)).signal;
  }

  private open(tick: number): AbortController {
    const controller = new AbortController();
    // Every call of the tick listens on this one signal: many listeners are the design, not a leak.
    setMaxListeners(0, controller.signal);
    this.ticks.set(tick, controller);
    const timer = setTimeout(
      () => {
        this.ticks.delete(tick);
        controller.abort();
      },
      Math.max(0, tick * this.resolutionMs - this.now()),
    );
    // A pending deadline must not keep a finished process alive; open sockets do that while calls run.
    timer.unref();
    return controller;
  }
}
