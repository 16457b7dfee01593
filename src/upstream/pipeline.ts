import type { Fetched, Served } from './datasources/fetched';
import type { UpstreamService } from './failures/upstreamError';
import type { AnswerStore } from './stores/answerStore';
import { breakerStage, type Breaker } from './stages/breaker';
import { cacheStage } from './stages/cache';
import { coalescingStage } from './stages/coalescer';
import type { CacheEventSink, UpstreamEventSink } from './events';
import { fillStage } from './stages/fill';
import type { FreshnessPolicy } from './stages/freshness';
import type { Next, Stage } from './stages/stage';

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
  /** The endpoint's request; its HTTP requests pass the governor, then the transport (see governedHttpClient.ts). */
  request: (input: I) => Promise<Fetched<T>>;
  now: () => number;
  onEvent: UpstreamEventSink;
}

/**
 * The upstream call path of one endpoint, composed once at start-up. The
 * stage order, written once:
 *
 *   cache → coalescing → fill → breaker → request → governor → transport
 *
 * The first four are answer-level stages, listed below; the request is the
 * endpoint's datasource call, and every HTTP request it makes (sign-in, the
 * repeat after a 401, retries included) passes the governor and then the
 * transport, composed once over the HTTP client (see upstreams.ts). Callers
 * receive `Served<T>`: the answer, its age and how it was found.
 */
export function protectEndpoint<I, T>(options: PipelineOptions<I, T>): (input: I) => Promise<Served<T>> {
  const emit: CacheEventSink = (outcome) =>
    options.onEvent({ type: 'cache', outcome, service: options.service, endpoint: options.endpoint });
  const stages: Stage<I, T>[] = [
    cacheStage({ store: options.store, isAnswer: options.isAnswer, now: options.now }),
    coalescingStage(),
    fillStage({ store: options.store, isAnswer: options.isAnswer }),
    breakerStage(options.breaker),
  ];
  const call = stages.reduceRight<Next<I, T>>((next, stage) => stage(next), requestStage(options.request));
  // One cache event per caller, from the answer it was served: no stage has to guess what a later one decides.
  return async (input) => {
    try {
      const served = await call({
        input,
        key: options.keyOf(input),
        policy: options.policyOf(input, options.now()),
        absent: false,
        background: false,
      });
      emit(served.cache);
      return served;
    } catch (error) {
      // Nothing served: a miss the upstream could not fill.
      emit('miss');
      throw error;
    }
  };
}

/** The last answer-level stage: an answer that comes back from the upstream is a `miss` (earlier stages may say otherwise). */
function requestStage<I, T>(request: (input: I) => Promise<Fetched<T>>): Next<I, T> {
  return async (call) => {
    const fetched = await request(call.input);
    return { value: fetched.value, fetchedAt: fetched.fetchedAt, cache: 'miss' };
  };
}
