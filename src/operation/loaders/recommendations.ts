import DataLoader from 'dataloader';
import type { Fetched } from '../../kernel/fetched';
import type { RecommendationWire, RenderParams } from '../../kernel/wire';
import type { UpstreamAllowance } from '../upstreamAllowance';
import type { RenderEndpoint } from '../../upstream/endpoints/render';
import { settleWithConcurrency } from './concurrency';

export type RecommendationsLoader = DataLoader<RenderParams, Fetched<RecommendationWire[]>, string>;

export interface RecommendationsLoaderOptions {
  /** render.json calls in flight at once for one GraphQL operation. */
  maxConcurrency: number;
  /** The operation's allowance of upstream calls; keys beyond it fail with UPSTREAM_BUDGET_EXCEEDED. Unlimited when absent. */
  allowance?: UpstreamAllowance;
  /** Told each batch's size (metrics). */
  onBatch?: (size: number) => void;
}

/**
 * The cache key is the whole parameter set: a response for one reader or one
 * canonical URL must never answer another. Absent and empty stay distinct
 * (null vs ""), because the upstream receives them differently.
 */
export function renderCacheKey(params: RenderParams): string {
  return JSON.stringify([params.id, params.canonicalUrl ?? null, params.domain ?? null, params.clientId ?? null]);
}

/**
 * One loader per GraphQL operation (built in the context factory, never
 * shared): duplicates within the operation, e.g. an `_entities` batch naming
 * the same article twice, reach render.json once. render.json takes one
 * parameter set per call, so a batch becomes bounded parallel calls.
 */
export function createRecommendationsLoader(recommender: RenderEndpoint, options: RecommendationsLoaderOptions): RecommendationsLoader {
  return new DataLoader(renderBatch(recommender, options), { cacheKeyFn: renderCacheKey, name: 'recommendations' });
}

/** The batch function, exported for tests of its contract. */
export function renderBatch(
  recommender: RenderEndpoint,
  options: RecommendationsLoaderOptions,
): (keys: readonly RenderParams[]) => Promise<(Fetched<RecommendationWire[]> | Error)[]> {
  return async (keys) => {
    options.onBatch?.(keys.length);
    // The allowance is taken in key order before any call starts, so which keys fail does not depend on timing.
    const granted = keys.map(() => options.allowance?.tryTake() ?? true);
    const settled = await settleWithConcurrency(keys, options.maxConcurrency, (params, index) =>
      granted[index] ? recommender.render(params) : Promise.reject(options.allowance?.exceededError()),
    );
    const results = settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : asError(outcome.reason)));
    assertBatchContract(results);
    return results;
  };
}

/**
 * DataLoader's contract: an Error for each failed key, a value otherwise.
 * One result per key in key order holds by construction (one settled outcome per key).
 */
function assertBatchContract(results: readonly unknown[]): void {
  const bad = results.findIndex((result) => !(result instanceof Error) && !isFetchedList(result));
  if (bad >= 0) throw new Error(`recommendations batch result ${bad} is neither a fetched list nor an Error`);
}

function isFetchedList(result: unknown): boolean {
  return typeof result === 'object' && result !== null && Array.isArray((result as { value?: unknown }).value);
}

/** DataLoader treats only Error instances as failures; anything else thrown would be cached as a value. */
function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(`render.json failed: ${String(reason)}`);
}
