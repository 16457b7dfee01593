import type { Fetched, Served } from '../kernel/fetched';
import type { UpstreamService } from '../kernel/failures/upstreamError';
import type { AnswerStore } from './stores/answerStore';
import { breakerStage, type Breaker } from './stages/breaker';
import { cachedAnswer, cacheStage } from './stages/cache';
import { coalescingStage } from './stages/coalescer';
import type { Observer } from '../kernel/observer';
import { fillStage } from './stages/fill';
import type { FreshnessPolicy } from './stages/freshness';
import type { Next, Stage } from './stages/stage';
import { governorStage, type GovernorStageOptions } from './stages/governorStage';
import { retryStage, type RetryOptions } from './stages/retry';
import { tokenRenewalStage } from './stages/tokenRenewal';
import type { HttpClient, SlotGrant } from './transport/httpClient';
import type { TokenProvider } from '../auth/tokenProvider';

/**
 * The upstream call path, every stage in order, written once. A call goes
 * down this list and its answer (or error) comes back up; nothing below a
 * stage calls back up into it.
 *
 * Per operation (built per GraphQL request in operation/context.ts):
 *    1. de-dup within the operation   DataLoader per endpoint (operation/loaders/recommendations.ts, operation/dashboardAllowance.ts)
 *    2. allowance                     MAX_UPSTREAM_CALLS_PER_OPERATION (operation/upstreamAllowance.ts)
 *    3. cache-hit give-back           an answer served from the cache costs no allowance (operation/cacheHits.ts)
 * Process-wide, reporting only (above the protected endpoint, in reporting/):
 *    q. budget queue                  the only granter of reporting slots: asks that found no slot wait here; the next
 *                                     slot read from the rate store's reporting bucket, a grant each HTTP attempt of a
 *                                     query it sends awaits (stage 11), deadlines and refusals with retryAfter, the plan, and the order in
 *                                     which kinds of asks (dashboards, table asks, refreshes) get the budget; each
 *                                     kind merges its asks into one query (reporting/budget/budgetQueue.ts; the kinds:
 *                                     reporting/dashboard/dashboardAsks.ts, reporting/tables/tableAsks.ts)
 * Per endpoint, answer-level (`protectEndpoint` below; stages/stage.ts):
 *    4. cache                         fresh (hit), stale-while-revalidate, stale-if-error (stages/cache.ts)
 *       (peek: the same read alone, fresh or stale-while-revalidate, nothing below it called, no refresh
 *       started; the budget queue reads it before it holds back or refuses a dashboard: `cachedAnswer`)
 *    5. coalescing                    identical calls in flight in this process share one (stages/coalescer.ts)
 *    6. fill                          claim the key across replicas, then set or fail (stages/fill.ts)
 *    7. breaker                       circuit breaker, upstream outages only (stages/breaker.ts)
 *    8. request                       the endpoint's datasource call (datasources/*.ts)
 * Per HTTP request, HTTP-level (`httpPath`, `reportingHttpPath` below; each an HttpStage over the next):
 *    9. token                         reporting only: bearer token, renew and repeat after a 401 (stages/tokenRenewal.ts)
 *   10. retry                         backoff with jitter, the 429 repeat, deadline-aware (stages/retry.ts)
 *   11. governor                      each attempt takes its place in its rate (a reporting one: awaits the queue's grant);
 *                                     a 429 pauses it (stages/governorStage.ts)
 *   12. transport                     one HTTP attempt within the call's deadline (transport/httpClient.ts)
 *
 * Every decision about a failure (retried? breaker? stale? sign-in backoff?
 * client code?) is read from failures/policy.ts.
 */

/** Stages 10–12: the path of every HTTP request, sign-ins included. */
export function httpPath(parts: { retry: RetryOptions; governor: GovernorStageOptions; transport: HttpClient }): HttpClient {
  return retryStage(parts.retry)(governorStage(parts.governor)(parts.transport));
}

/** Stage 9 over stages 10–12: the reporting API's authenticated path (the sign-in itself takes `httpPath`). */
export function reportingHttpPath(tokens: Pick<TokenProvider, 'getToken' | 'renew' | 'served' | 'refused'>, http: HttpClient): HttpClient {
  return tokenRenewalStage(tokens)(http);
}

export interface PipelineOptions<I, T> {
  service: UpstreamService;
  endpoint: string;
  /** Everything that changes the answer (see keys.ts). */
  keyOf: (input: I) => string;
  /** Time to live and stale-if-error window of this input's answer, at `nowMs`. */
  policyOf: (input: I, nowMs: number) => FreshnessPolicy;
  /** Checks what a (possibly shared, possibly older) store hands back before it is served. */
  isAnswer: (value: unknown, input: I) => value is T;
  store: AnswerStore;
  breaker: Breaker;
  /** The endpoint's request (stage 8); its HTTP requests take the HTTP-level stages (`httpPath`), each attempt with `grant` when given. */
  request: (input: I, grant?: SlotGrant) => Promise<Fetched<T>>;
  now: () => number;
  observer: Observer;
}

/** One endpoint's protected call (stages 4–8), and its cache-only read (stage 4's read alone: `peek`). */
export interface ProtectedEndpoint<I, T> {
  /** `grant`: the budget queue's, for each HTTP attempt the call makes (see UpstreamCall.grant). */
  (input: I, grant?: SlotGrant): Promise<Served<T>>;
  /** The answer the cache holds for `input` (fresh, or stale within stale-while-revalidate), else undefined; never calls the upstream. */
  peek(input: I): Promise<Served<T> | undefined>;
}

/**
 * Stages 4–8 of one endpoint, composed once at start-up. Callers receive
 * `Served<T>`: the answer, its age and how it was found.
 */
export function protectEndpoint<I, T>(options: PipelineOptions<I, T>): ProtectedEndpoint<I, T> {
  const where = { service: options.service, endpoint: options.endpoint };
  const emit = (outcome: Served<T>['cache']) => options.observer.answerServed(where, outcome);
  const cache = { store: options.store, isAnswer: options.isAnswer, now: options.now };
  const stages: Stage<I, T>[] = [
    cacheStage(cache),
    coalescingStage(),
    fillStage({ store: options.store, isAnswer: options.isAnswer }),
    breakerStage(options.breaker),
  ];
  const call = stages.reduceRight<Next<I, T>>((next, stage) => stage(next), requestStage(options.request));
  const readCache = cachedAnswer(cache);
  // One cache event per caller, from the answer it was served: no stage has to guess what a later one decides.
  const protectedCall = async (input: I, grant?: SlotGrant): Promise<Served<T>> => {
    try {
      const served = await call({
        input,
        key: options.keyOf(input),
        policy: options.policyOf(input, options.now()),
        absent: false,
        background: false,
        ...(grant === undefined ? {} : { grant }),
      });
      emit(served.cache);
      return served;
    } catch (error) {
      // Nothing served: a miss the upstream could not fill.
      emit('miss');
      throw error;
    }
  };
  // A peek that finds nothing serves nothing (the caller is refused or goes on to the call): only an answer served is an event.
  const peek = async (input: I): Promise<Served<T> | undefined> => {
    const served = await readCache(options.keyOf(input), input, options.policyOf(input, options.now()));
    if (served !== undefined) emit(served.cache);
    return served;
  };
  return Object.assign(protectedCall, { peek });
}

/** The last answer-level stage: an answer that comes back from the upstream is a `miss` (earlier stages may say otherwise). */
function requestStage<I, T>(request: (input: I, grant?: SlotGrant) => Promise<Fetched<T>>): Next<I, T> {
  return async (call) => {
    const fetched = await request(call.input, call.grant);
    return { value: fetched.value, fetchedAt: fetched.fetchedAt, cache: 'miss' };
  };
}
