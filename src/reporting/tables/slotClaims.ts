/**
 * Which table each coming slot is promised to (issue 38, item 3): a refused
 * ask's `retryAfter` names a slot, and the demand it leaves is owed that slot
 * (src/reporting/tables/leftDemand.ts). One slot sends one query, of one
 * table: two tables promised the same slot break one of the promises (a
 * ranking of a table nobody had took the slot an ask outside another table
 * was promised, and that ask's retry was refused again). So each promise
 * claims its slot first, and a slot already claimed for another table
 * promises the next one. The replica that gets a slot reads who it is
 * promised to (`claimantsAt`), and carries that promise, whichever replica
 * made it, before its own work.
 *
 * Slots are instants the replicas read from the one budget bucket, each a
 * little apart (a refusal's whole seconds, when each replica looked): claims
 * within half a slot of an instant are of that slot.
 *
 * This ledger is one replica's (no Redis, or Redis away); with REDIS_URL the
 * cluster's is on the board (src/redis/reporting/redisAnalyticsBoard.ts,
 * `claimSlot`), the same rule in one script.
 */
export class SlotClaims {
  /** Claimed slots: when, and for which table. */
  private claims: { at: number; claimant: string }[] = [];

  /**
   * The first slot from `from` on (`from`, `from + slotMs`, ... up to `most`
   * of them) that is not claimed for another table, claimed for `claimant`
   * (a slot it holds already is its own). Undefined when all are claimed.
   */
  claim(claimant: string, from: number, slotMs: number, most: number, now: number): number | undefined {
    // A slot that passed is spent: its claim goes.
    this.claims = this.claims.filter((claim) => claim.at > now - slotMs);
    for (let index = 0; index < most; index++) {
      const at = from + index * slotMs;
      const near = this.claims.filter((claim) => Math.abs(claim.at - at) <= slotMs / 2);
      if (near.some((claim) => claim.claimant !== claimant)) continue;
      const own = near[0];
      if (own !== undefined) return own.at;
      this.claims.push({ at, claimant });
      return at;
    }
    return undefined;
  }

  /** Who the slot at `at` is promised to (claims within half a slot of it). */
  claimantsAt(at: number, slotMs: number): string[] {
    return this.claims.filter((claim) => Math.abs(claim.at - at) <= slotMs / 2).map((claim) => claim.claimant);
  }
}
