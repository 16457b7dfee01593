import type { JsonRequest } from '../transport/httpClient';
import { failurePolicyOf, type UpstreamError } from '../../kernel/failures/upstreamError';
import type { Observer } from '../../kernel/observer';
import type { Rate, Governor } from './governor';
import type { HttpStage } from './retry';

export interface GovernorStageOptions {
  governor: Governor;
  /** The rate a request spends from; undefined for requests no rate covers. */
  rateOf: (request: JsonRequest) => Rate | undefined;
  observer: Observer;
}

/**
 * The governor stage: every HTTP attempt that comes down (a first try, a
 * retry, the repeat after a 429, a sign-in, the repeat after a 401) first
 * takes its own place in its rate, within the wait the stage above allows
 * (`maxWaitMs`), then goes to the transport. A reporting query's place is
 * the budget queue's grant, carried by the call (`CallOptions.grant`): the
 * stage awaits it, and reserves nothing of its own. A reporting request
 * with no grant (no production path sends one: the budget queue is the
 * dashboard endpoint's only caller; tests call the endpoint directly) takes
 * its place from the same bucket as any rate's call: the same bucket, so
 * nothing is overspent, and no order of its own, so not a second scheduler. The upstream counts every one
 * of them, so the governor does too. A 429 pauses the budget for every
 * caller; whether the request is repeated is the retry stage's decision.
 */
export function governorStage(options: GovernorStageOptions): HttpStage {
  return (next) => ({
    requestJson: async (request, call) => {
      const rate = options.rateOf(request);
      if (rate === undefined) return next.requestJson(request, call);
      const turn = await options.governor.acquire(rate, whereOf(request), call?.maxWaitMs, undefined, call?.grant);
      try {
        const json = await next.requestJson(request, call);
        turn.finish('answered');
        return json;
      } catch (error) {
        const policy = failurePolicyOf(error);
        if (policy?.retry === 'after_pause') {
          await pauseBudget(rate, error as UpstreamError, options);
          turn.finish('rate_limited');
        } else {
          turn.finish(policy?.answered === true ? 'answered' : 'unanswered');
        }
        throw error;
      }
    },
  });
}

async function pauseBudget(rate: Rate, error: UpstreamError, options: GovernorStageOptions): Promise<void> {
  const retryAfterSeconds = error.retryAfterSeconds;
  options.observer.rateLimited({ service: error.service, endpoint: error.endpoint }, retryAfterSeconds);
  if (retryAfterSeconds !== undefined) await options.governor.pause(rate, retryAfterSeconds);
}

/** Only the names: the request itself carries the bearer token and, for sign-in, the password. */
function whereOf(request: JsonRequest): Pick<JsonRequest, 'service' | 'endpoint'> {
  return { service: request.service, endpoint: request.endpoint };
}
