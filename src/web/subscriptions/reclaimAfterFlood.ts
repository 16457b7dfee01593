/** This many ended subscriptions since the last collection are a flood worth one once it is over. */
export const FLOOD_ENDED_SUBSCRIPTIONS = 1_000;
/** Over once no subscription ended for this long. */
export const FLOOD_QUIET_MS = 2_000;

/** One major collection, run by V8 as a task (no pause of the caller): `gc` when the process runs with `--expose-gc`. */
export type CollectGarbage = () => Promise<void>;

/** The process's `gc` (`node --expose-gc`, as `npm start` and the image run it); undefined without the flag. */
export function exposedCollectGarbage(): CollectGarbage | undefined {
  const gc = globalThis.gc;
  return gc === undefined ? undefined : () => gc({ type: 'major', execution: 'async' });
}

/**
 * Asks V8 for one major collection once a flood of ended subscriptions is
 * over: FLOOD_ENDED_SUBSCRIPTIONS of them since the last collection, then
 * FLOOD_QUIET_MS without one. The count is not reset by a quiet moment, so a
 * flood that pauses is still one flood (and the ordinary coming and going of
 * subscribers earns a collection per thousand ends, at a quiet moment).
 * What a flood leaves is garbage, not held memory (heap snapshots after one
 * hold what they held before it), but V8's memory reducer collects it only
 * once it judges the allocation rate low: 30–90 s after 10,000
 * subscribe/complete pairs (issue 35), with the RSS 50–70 MB up meanwhile.
 * Hand-written: a counter and one re-armed timer, with no library for it.
 * Without `--expose-gc` it does nothing, and V8 collects in its own time.
 */
export class ReclaimAfterFlood {
  private ended = 0;
  private quiet: NodeJS.Timeout | undefined;

  constructor(
    private readonly collect: CollectGarbage | undefined,
    /** Told each collection and the subscriptions whose end led to it. */
    private readonly onCollect: (ended: number) => void,
  ) {}

  /** A subscription ended. */
  subscriptionEnded(): void {
    if (this.collect === undefined) return;
    this.ended += 1;
    if (this.quiet === undefined) {
      this.quiet = setTimeout(() => this.over(), FLOOD_QUIET_MS);
      this.quiet.unref();
    } else {
      this.quiet.refresh();
    }
  }

  private over(): void {
    const ended = this.ended;
    if (ended < FLOOD_ENDED_SUBSCRIPTIONS || this.collect === undefined) return;
    this.ended = 0;
    this.onCollect(ended);
    void this.collect();
  }
}
