import type { EmulatorContext } from '../context';
import type { EmulatorRequest } from '../http/request';
import { failureReply, json, tooManyRequests } from '../http/reply';
import type { Handler } from '../http/router';
import { instrument } from '../control/instrument';
import { renderRecommendations } from '../recommender';

/** `GET /recommenderexperience/render.json` (docs/upstream-contract.md §3): no credential, a budget per client IP. */
export function renderRoute(context: EmulatorContext): Handler {
  return instrument('render', renderStatsKey, context.instruments, (request) => {
    const decision = context.limits.render.take(`ip:${request.clientIp}`);
    if (!decision.allowed) return tooManyRequests(decision.retryAfterSeconds);
    const result = renderRecommendations(context.store, request.url.searchParams, context.clock.now());
    return result.ok ? json(200, result.value) : failureReply(result);
  });
}

function renderStatsKey(request: EmulatorRequest): string {
  const query = request.url.searchParams;
  return JSON.stringify(['id', 'canonical_url', 'domain', 'client_id'].map((name) => query.get(name)));
}
