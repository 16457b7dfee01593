/**
 * A key beyond the operation's allowance. Not a GraphQL error: graphql/ gives
 * it its public code, UPSTREAM_BUDGET_EXCEEDED (graphql/limits/limitErrors.ts).
 */
export class AllowanceExceeded extends Error {
  override readonly name = 'AllowanceExceeded';

  constructor(readonly limit: number) {
    super(`This operation needs more than ${limit} upstream calls (MAX_UPSTREAM_CALLS_PER_OPERATION); split it into smaller operations`);
  }
}

/**
 * The operation's allowance: how many distinct upstream calls one operation
 * may make (MAX_UPSTREAM_CALLS_PER_OPERATION). Not to be confused with the
 * governor's rates, which pace every replica's calls to the upstream over
 * time. One per request, in the context, and
 * taken where calls are made (the loaders), because the number of calls is
 * often only known at run time: list sizes multiply through nesting, and an
 * `_entities` batch is as large as the router makes it. Also where the
 * operation log and metrics read what the operation spent.
 */
export class UpstreamAllowance {
  private granted = 0;
  private refused = 0;
  private hits = 0;
  private exceeded: AllowanceExceeded | undefined;

  constructor(readonly limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`UpstreamAllowance: limit must be an integer >= 0, got ${limit}`);
  }

  /** Takes one call from the allowance; false once it is spent. */
  tryTake(): boolean {
    if (this.granted >= this.limit) {
      this.refused += 1;
      return false;
    }
    this.granted += 1;
    return true;
  }

  /**
   * The error every key beyond the allowance fails with. One instance per
   * operation: graphql-js wraps it per path anyway, and building (and
   * source-mapping the stack of) 10,000 errors for one `_entities` batch cost
   * seconds.
   */
  exceededError(): AllowanceExceeded {
    this.exceeded ??= new AllowanceExceeded(this.limit);
    return this.exceeded;
  }

  /** An answer served without a call (from the answer cache), after tryTake granted one: counted for the operation log, and given back. */
  recordCacheHit(): void {
    this.hits += 1;
    if (this.granted > 0) this.granted -= 1;
  }

  get calls(): number {
    return this.granted;
  }

  get refusedCalls(): number {
    return this.refused;
  }

  get cacheHits(): number {
    return this.hits;
  }
}
