import { EventEmitter } from 'node:events';

/**
 * The deadline of every call that ends within one tick: what the transport and undici read of a signal (`aborted`,
 * `reason`, an 'abort' event), as an EventEmitter, which undici takes in place of an AbortSignal.
 *
 * Not an AbortSignal: a tick's signal lives for the call timeout, long enough to reach the old generation, and
 * Node's EventTarget leaves each removed listener linked to the listeners after it. A removed listener promoted
 * with its request then kept every later call's listener, and through it that call's request and parsed answer,
 * alive through every young-generation collection until the next full one (`npm run bench -- gc-trace`: 5.5 KB
 * promoted a request with a tick's AbortSignal, 1.9 KB without its listeners; bench/README.md, "The raw path,
 * fifth pass"). An EventEmitter keeps its listeners in an array it splices.
 */
export class DeadlineTick extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  constructor() {
    super();
    // Every call of the tick listens here: many listeners are the design, not a leak.
    this.setMaxListeners(0);
  }

  /** Ends the tick: every call still listening is told once. */
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new DOMException('This operation was aborted', 'AbortError');
    this.emit('abort');
    this.removeAllListeners('abort');
  }
}

/**
 * Call deadlines shared by every call that ends within the same tick of
 * `resolutionMs`: one DeadlineTick and one timer per tick instead of an
 * AbortController plus a setTimeout per call, which the profile showed on
 * the hot path. A deadline fires at the end of its tick, so a call gets its
 * full time and at most `resolutionMs` more.
 */
export class DeadlineTicks {
  private readonly ticks = new Map<number, DeadlineTick>();

  constructor(
    private readonly resolutionMs = 5,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The signal that aborts once `timeoutMs` from now have passed; callers in the same tick share it. */
  signalFor(timeoutMs: number): DeadlineTick {
    const tick = Math.ceil((this.now() + timeoutMs) / this.resolutionMs);
    return this.ticks.get(tick) ?? this.open(tick);
  }

  private open(tick: number): DeadlineTick {
    const signal = new DeadlineTick();
    this.ticks.set(tick, signal);
    const timer = setTimeout(
      () => {
        this.ticks.delete(tick);
        signal.abort();
      },
      Math.max(0, tick * this.resolutionMs - this.now()),
    );
    // A pending deadline must not keep a finished process alive; open sockets do that while calls run.
    timer.unref();
    return signal;
  }
}
