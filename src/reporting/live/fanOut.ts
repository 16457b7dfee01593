/** Pushes per turn of the event loop, across every feed of the replica. */
const SLICE = 50;

/**
 * The replica's one pace for pushing emissions to subscribers: a slice per
 * turn of the event loop, whatever feed they come from. Each push runs its
 * subscriber's execution and serialization (graphql-js, graphql-ws) in the
 * microtasks right after it, so a refresh read by 100 feeds for 2,000
 * subscribers once held the loop for seconds in one turn: health checks,
 * queries and other sockets waited behind it (issue 35). Now I/O gets its
 * turn between slices. Pushes keep their order (a subscriber's queue keeps
 * only its latest anyway).
 */
export class FanOut {
  private readonly pending: (() => void)[] = [];
  private scheduled = false;

  push(delivery: () => void): void {
    this.pending.push(delivery);
    if (this.scheduled) return;
    this.scheduled = true;
    // Scheduled from the previous slice's callback, the next runs in the loop's next turn, after its I/O.
    setImmediate(() => this.runSlice());
  }

  private runSlice(): void {
    for (const delivery of this.pending.splice(0, SLICE)) delivery();
    if (this.pending.length > 0) setImmediate(() => this.runSlice());
    else this.scheduled = false;
  }
}
