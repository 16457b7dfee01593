import { setMaxListeners } from 'node:events';

/**
 * Call deadlines shared by every call that ends within the same slot of
 * `resolutionMs`: one AbortController and one timer per slot instead of an
 * AbortController plus a setTimeout per call, which the profile showed on
 * the hot path. A deadline fires at the end of its slot, so a call gets its
 * full budget and at most `resolutionMs` more.
 */
export class DeadlineSlots {
  private readonly slots = new Map<number, AbortController>();

  constructor(
    private readonly resolutionMs = 5,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The signal that aborts once `timeoutMs` from now have passed; callers in the same slot share it. */
  signalFor(timeoutMs: number): AbortSignal {
    const slot = Math.ceil((this.now() + timeoutMs) / this.resolutionMs);
    return (this.slots.get(slot) ?? this.open(slot)).signal;
  }

  private open(slot: number): AbortController {
    const controller = new AbortController();
    // Every call of the slot listens on this one signal: many listeners are the design, not a leak.
    setMaxListeners(0, controller.signal);
    this.slots.set(slot, controller);
    const timer = setTimeout(
      () => {
        this.slots.delete(slot);
        controller.abort();
      },
      Math.max(0, slot * this.resolutionMs - this.now()),
    );
    // A pending deadline must not keep a finished process alive; open sockets do that while calls run.
    timer.unref();
    return controller;
  }
}
