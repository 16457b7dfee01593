import { RATE_WINDOW_MS, type Reservation } from '../../upstream/stores/rateStore';
import type { Seat } from '../connection/replicaRoster';

/**
 * What a replica spends of a budget while it cannot reach the shared bucket
 * (Redis away, or refusing the script): its share, counted from the shared
 * bucket as it last saw it, never from a full bucket of its own. One number
 * per budget, the instant the bucket is full again (GCRA, as in
 * MemoryRateStore), replaced by the shared bucket's each time this replica
 * sees it (`saw`).
 *
 * - A share of at least one a minute (`perMinute / replicas`): a bucket of
 *   that size and rate. Each local bucket takes a full window to fill, like
 *   the shared one, so a replica that saw the shared bucket's "full at"
 *   holds its share of what was left, and the replicas together hold what
 *   the shared bucket held.
 * - A share below one a minute cannot be a bucket of its own (each replica's
 *   one request would go at the same moment: N probes at once). The budget's
 *   slots are dealt in turns instead, on the wall clock every replica reads
 *   alike: the budget's interval (63 s at one a minute) is one turn, and turn
 *   `i` is the replica of rank `i mod replicas`'s, sent at the turn's start.
 *   The cluster sends at most one request a turn, and nothing before the
 *   shared bucket, as last seen, had a slot.
 */
export class LocalShare {
  /** Budget key → the instant its bucket is full again, in the shared bucket's terms (every replica's bucket fills in one window). */
  private readonly fullAt = new Map<string, number>();
  /** Budgets this replica spent from here since it last saw their shared bucket: the shared bucket has not seen these requests. */
  private readonly unseen = new Set<string>();

  /** The shared bucket as it is now (its "full at"; 0 when it is full or gone): what this replica spends from if it is cut off next. */
  saw(key: string, sharedFullAtMs: number): void {
    this.fullAt.set(key, sharedFullAtMs);
    this.unseen.delete(key);
  }

  /**
   * The shared bucket as a read found it (a look, not a step of this
   * replica's there): if this replica spent from here since it last saw the
   * bucket, the bucket has not seen those requests (Redis refusing the
   * script, or restarted empty while a charge is under way), so the spend
   * stays unseen, to be charged, and the later "full at" of the two holds.
   */
  looked(key: string, sharedFullAtMs: number): void {
    if (!this.unseen.has(key)) {
      this.saw(key, sharedFullAtMs);
      return;
    }
    this.fullAt.set(key, Math.max(this.fullAt.get(key) ?? 0, sharedFullAtMs));
  }

  /**
   * The budgets spent from here that the shared bucket has not seen, each
   * with the "full at" the shared bucket should be at least: exact for turns
   * (the whole budget's bucket after this replica's requests); for a share of
   * a minute or more, its own bucket's, which is what the shared one would be
   * had every replica spent alike (more than this replica's alone: the safe side).
   */
  spentUnseen(): [key: string, fullAtMs: number][] {
    return [...this.unseen].flatMap((key) => {
      const fullAtMs = this.fullAt.get(key);
      return fullAtMs === undefined ? [] : [[key, fullAtMs] as [string, number]];
    });
  }

  reserve(key: string, perMinute: number, seat: Seat, nowMs: number, maxWaitMs: number): Reservation {
    const fullAt = this.fullAt.get(key) ?? nowMs;
    const share = perMinute / Math.max(1, seat.replicas);
    if (share >= 1) {
      const intervalMs = RATE_WINDOW_MS / share;
      const next = Math.max(fullAt, nowMs) + intervalMs;
      const waitMs = Math.max(0, next - share * intervalMs - nowMs);
      if (waitMs > maxWaitMs) return { granted: false, retryAfterMs: waitMs };
      this.fullAt.set(key, next);
      this.unseen.add(key);
      return { granted: true, waitMs };
    }
    const turnMs = RATE_WINDOW_MS / perMinute;
    // The first instant the shared bucket, as last seen (and spent from here since), has a slot.
    const readyAt = Math.max(nowMs, fullAt - (perMinute - 1) * turnMs);
    const sendAt = nextTurnStart(readyAt, turnMs, seat);
    const waitMs = sendAt - nowMs;
    if (waitMs > maxWaitMs) return { granted: false, retryAfterMs: waitMs };
    this.fullAt.set(key, Math.max(fullAt, sendAt) + turnMs);
    this.unseen.add(key);
    return { granted: true, waitMs };
  }

  /** The upstream said 429: empty until `untilMs`, then refilling (in turns, for a share below one). */
  pause(key: string, perMinute: number, seat: Seat, untilMs: number): void {
    const share = perMinute / Math.max(1, seat.replicas);
    // Empty at `untilMs` in the terms `reserve` reads: a bucket of the share, or the whole budget's bucket dealt in turns.
    const emptyUntil =
      share >= 1 ? untilMs + (share - 1) * (RATE_WINDOW_MS / share) : untilMs + (perMinute - 1) * (RATE_WINDOW_MS / perMinute);
    this.fullAt.set(key, Math.max(this.fullAt.get(key) ?? 0, emptyUntil));
  }
}

/** The start of the first turn of `seat` at or after `fromMs`: turns are `turnMs` long from the epoch, dealt round the ranks. */
function nextTurnStart(fromMs: number, turnMs: number, seat: Seat): number {
  const replicas = Math.max(1, seat.replicas);
  const first = Math.ceil(fromMs / turnMs);
  const ahead = (((seat.rank - first) % replicas) + replicas) % replicas;
  return (first + ahead) * turnMs;
}
