import stableStringify from 'fast-json-stable-stringify';
import type { DashboardQueryBody, RenderParams } from '../kernel/wire';

/**
 * Keys of the shared answer cache and of in-flight coalescing. They are
 * shared by every operation (and, with Redis, by every replica), so each key
 * names everything that changes the answer and nothing else: an answer for
 * one reader, one canonical URL or one account must never serve another.
 *
 * The version prefix lets a deploy that changes a key's meaning ignore a
 * shared store's old entries instead of misreading them.
 */
const VERSION = 'v1';

/**
 * The full render.json parameter set. Absent and empty stay distinct (null
 * vs ""), because the upstream receives them differently.
 */
export function renderAnswerKey(params: RenderParams): string {
  return `${VERSION}:render:${JSON.stringify([params.id, params.canonicalUrl ?? null, params.domain ?? null, params.clientId ?? null])}`;
}

/**
 * The account (each account has its own sites and data) and the whole body.
 * Object keys are sorted so that the same question asked with fields in
 * another order shares the answer; arrays keep their order, since metric
 * order is the answer's order.
 */
export function dashboardAnswerKey(account: string, body: DashboardQueryBody): string {
  return `${VERSION}:dashboard:${JSON.stringify(account)}:${dashboardBodyKey(body)}`;
}

/** The body's part of the answer key: within one operation (one account), it names the answer. */
export function dashboardBodyKey(body: DashboardQueryBody): string {
  return stableStringify(body);
}
