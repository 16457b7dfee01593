/**
 * One subscriber's mailbox, as the async iterator its transport reads. It
 * holds the latest emission only: each emission is a whole snapshot (a
 * ranking, a set of articles' numbers), so a subscriber that reads late gets
 * the newest numbers, and a slow one costs one snapshot of memory here,
 * never a backlog. The transport's own buffer is bounded where the socket is
 * (src/web/subscriptions/).
 */
export class LatestQueue<T> implements AsyncIterableIterator<T> {
  private pending: { value: T } | undefined;
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private done = false;
  /** Emissions handed to the reader so far. */
  delivered = 0;

  constructor(private readonly hooks: { onDeliver(): void; onEnd(): void }) {}

  /** Replaces whatever the reader has not taken yet. */
  push(value: T): void {
    if (this.done) return;
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = undefined;
      this.deliver();
      waiting({ value, done: false });
      return;
    }
    this.pending = { value };
  }

  /** Whether the reader was handed anything yet, or has one waiting. */
  hasEmission(): boolean {
    return this.delivered > 0 || this.pending !== undefined;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.pending !== undefined) {
      const { value } = this.pending;
      this.pending = undefined;
      this.deliver();
      return Promise.resolve({ value, done: false });
    }
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  /** The reader is gone (the client completed, the socket closed) or the subgraph ends it: once. */
  return(): Promise<IteratorResult<T>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    this.pending = undefined;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
    this.hooks.onEnd();
  }

  private deliver(): void {
    this.delivered += 1;
    this.hooks.onDeliver();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
