import { cacheControlFromInfo, type CacheScope } from '@apollo/cache-control-types';
import type { GraphQLResolveInfo } from 'graphql';
import type { DashboardQueryInput } from '../__generated__/resolvers-types';
import type { CacheTtls } from '../../operation/context';
import { dashboardTtlSeconds } from '../../kernel/dashboardTtl';

export interface FreshnessHint {
  /** How long an answer stays fresh once fetched (0: never cached). */
  ttlSeconds: number;
  /** When the answer left the upstream; a cached answer has used part of its TTL already. */
  fetchedAt: number;
  scope: CacheScope;
  now: number;
}

/**
 * The seconds an answer has left: a router or CDN must not keep an answer
 * the subgraph itself would already refetch, so the hint is the TTL minus
 * the answer's age (rounded up to whole seconds, as HTTP max-age is), and 0
 * for an answer past its TTL (served stale) or a TTL of 0.
 */
export function remainingSeconds({ ttlSeconds, fetchedAt, now }: Omit<FreshnessHint, 'scope'>): number {
  if (ttlSeconds <= 0) return 0;
  const ageSeconds = Math.max(0, now - fetchedAt) / 1000;
  return Math.max(0, Math.ceil(ttlSeconds - ageSeconds));
}

/**
 * Sets this field's dynamic cache hint, replacing its static `@cacheControl`
 * fallback (maxAge 0): Apollo's cache-control plugin folds every field's hint
 * into the response's `cache-control` header (lowest maxAge, PRIVATE wins).
 */
function hintFreshness(info: GraphQLResolveInfo, hint: FreshnessHint): void {
  cacheControlFromInfo(info).setCacheHint({ maxAge: remainingSeconds(hint), scope: hint.scope });
}

/** A reference is only its key (an article's url, a reader's client id), which never changes. */
const ENTITY_REFERENCE_MAX_AGE_SECONDS = 86_400;

/**
 * The hint of one entity of an `_entities` fetch. Apollo's plugin gives that
 * root field maxAge 0 unless the entity's type is hinted, and a type hint would
 * reach the supergraph and govern the other subgraphs' fields of the shared
 * entity, so the hint is given here, at run time, only to our own answer.
 * `restrict`, not `setCacheHint`: every entity of the batch shares the one
 * `_entities` hint, and a PRIVATE Reader must stay private beside a PUBLIC
 * Article. The fields asked of the entity then lower it.
 */
export function hintEntityReference(info: GraphQLResolveInfo, scope: CacheScope): void {
  cacheControlFromInfo(info).cacheHint.restrict({ maxAge: ENTITY_REFERENCE_MAX_AGE_SECONDS, scope });
}

/** Personalized recommendations (a clientId) are one reader's: only that caller may cache them. */
export function recommendationScope(clientId: string | undefined): CacheScope {
  return clientId === undefined ? 'PUBLIC' : 'PRIVATE';
}

/** A render.json answer stays fresh for the render TTL. `now`: the operation's clock (Context.now). */
export function hintRenderAnswer(info: GraphQLResolveInfo, ttls: CacheTtls, fetchedAt: number, scope: CacheScope, now: () => number): void {
  hintFreshness(info, { ttlSeconds: ttls.renderTtlSeconds, fetchedAt, scope, now: now() });
}

/**
 * A reporting answer (a dashboard, a ranking, an article's numbers) stays
 * fresh for the dashboard TTL, or an hour once its window ended. Its scope is
 * the caller's read path's (src/reporting/reads/callerReads.ts): PUBLIC when
 * it is the one service account's numbers, the same for every caller; PRIVATE
 * when the caller's scopes or sites shaped it.
 */
export function hintDashboardAnswer(
  info: GraphQLResolveInfo,
  ttls: CacheTtls,
  dates: DashboardQueryInput['dates'],
  fetchedAt: number,
  now: () => number,
  scope: CacheScope,
): void {
  const nowMs = now();
  hintFreshness(info, {
    ttlSeconds: dashboardTtlSeconds(dates, nowMs, ttls.dashboardTtlSeconds),
    fetchedAt,
    scope,
    now: nowMs,
  });
}
