import { authenticateBearer } from '../auth/bearer';
import type { EmulatorContext } from '../context';
import type { EmulatorRequest } from '../http/request';
import { failureReply, tooManyRequests, type Reply } from '../http/reply';
import type { Handler } from '../http/router';
import type { User } from '../store';

export type ApiUserHandler = (request: EmulatorRequest, user: User) => Promise<Reply> | Reply;

/** Bearer auth for `{base_url}` routes; `budget` also spends the user's reporting plan. */
export function withApiUser(context: EmulatorContext, budget: 'reporting' | 'none', handler: ApiUserHandler): Handler {
  return async (request) => {
    const auth = await authenticateBearer(request.header('authorization'), context.tokens, context.store);
    if (!auth.ok) return failureReply(auth);
    if (budget === 'reporting') {
      const decision = context.limits.reporting.take(`user:${auth.value.id}`);
      if (!decision.allowed) return tooManyRequests(decision.retryAfterSeconds);
    }
    return handler(request, auth.value);
  };
}
