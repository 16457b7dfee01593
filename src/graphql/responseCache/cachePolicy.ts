import type { CacheHint, CachePolicy, CacheScope, ResolveInfoCacheControl } from '@apollo/cache-control-types';
import type { GraphQLCompositeType } from 'graphql';

/**
 * A cache policy as Apollo's (`newCachePolicy` in @apollo/server): `restrict`
 * keeps the lower maxAge and lets PRIVATE win, `replace` overwrites. A class,
 * so that one per resolved field is one small object, not five closures.
 */
export class HintPolicy implements CachePolicy {
  maxAge: number | undefined;
  scope: CacheScope | undefined;

  constructor(initial: CacheHint) {
    this.maxAge = initial.maxAge;
    this.scope = initial.scope;
  }

  restrict(hint: CacheHint): void {
    if (hint.maxAge !== undefined && (this.maxAge === undefined || hint.maxAge < this.maxAge)) this.maxAge = hint.maxAge;
    if (hint.scope !== undefined && this.scope !== 'PRIVATE') this.scope = hint.scope;
  }

  replace(hint: CacheHint): void {
    if (hint.maxAge !== undefined) this.maxAge = hint.maxAge;
    if (hint.scope !== undefined) this.scope = hint.scope;
  }

  policyIfCacheable(): Required<CacheHint> | null {
    if (this.maxAge === undefined || this.maxAge === 0) return null;
    return { maxAge: this.maxAge, scope: this.scope ?? 'PUBLIC' };
  }
}

/** One resolved field's policy, and what its resolver reads as `info.cacheControl` (@apollo/cache-control-types). */
export class FieldCachePolicy extends HintPolicy implements ResolveInfoCacheControl {
  constructor(
    initial: CacheHint,
    readonly cacheHintFromType: (type: GraphQLCompositeType) => CacheHint | undefined,
  ) {
    super(initial);
  }

  get cacheHint(): CachePolicy {
    return this;
  }

  /**
   * A function of its own, as Apollo's is, so a resolver may take it out of `info.cacheControl` and call it alone;
   * made when asked for, since most fields never set a hint.
   */
  get setCacheHint(): (hint: CacheHint) => void {
    return (hint) => this.replace(hint);
  }
}

export function isRestricted(hint: CacheHint): boolean {
  return hint.maxAge !== undefined || hint.scope !== undefined;
}
