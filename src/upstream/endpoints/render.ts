import type { Served } from '../../kernel/fetched';
import { RENDER_PATH, findRenderShapeProblem, type RecommenderAPI } from '../datasources/recommenderAPI';
import type { RecommendationWire, RenderParams } from '../../kernel/wire';
import type { AnswerStore } from '../stores/answerStore';
import type { Breaker } from '../stages/breaker';
import type { Observer } from '../../kernel/observer';
import { renderAnswerKey } from '../keys';
import { protectEndpoint } from '../pipeline';

/** render.json, protected: what the recommendations loader calls. */
export interface RenderEndpoint {
  render(params: RenderParams): Promise<Served<RecommendationWire[]>>;
}

export interface RenderEndpointOptions {
  recommender: Pick<RecommenderAPI, 'render'>;
  store: AnswerStore;
  breaker: Breaker;
  ttlMs: number;
  staleIfErrorMs: number;
  now: () => number;
  observer: Observer;
}

export function createRenderEndpoint(options: RenderEndpointOptions): RenderEndpoint {
  const render = protectEndpoint<RenderParams, RecommendationWire[]>({
    service: 'recommender',
    endpoint: RENDER_PATH,
    keyOf: renderAnswerKey,
    policyOf: () => ({ ttlMs: options.ttlMs, staleIfErrorMs: options.staleIfErrorMs }),
    isAnswer: (value): value is RecommendationWire[] =>
      findRenderShapeProblem({ type: 'RecommenderExperienceResponse', recommendation: value }) === undefined,
    store: options.store,
    breaker: options.breaker,
    request: (params) => options.recommender.render(params),
    now: options.now,
    observer: options.observer,
  });
  return { render };
}
