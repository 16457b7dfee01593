import type { EmulatorContext } from '../context';
import { runPlannedDashboardQuery } from '../dashboard';
import type { EmulatorRequest } from '../http/request';
import { emptyOk, failureReply, json } from '../http/reply';
import type { Handler } from '../http/router';
import { instrument } from '../control/instrument';
import { canonicalJson } from '../control/stats';
import { withApiUser } from './apiUser';

/** `POST /api/dashboard/query` (docs/upstream-contract.md §2). */
export function dashboardRoute(context: EmulatorContext): Handler {
  return instrument(
    'dashboard',
    dashboardStatsKey,
    context.instruments,
    withApiUser(context, 'reporting', async (request) => {
      const body = await request.json();
      if (!body.ok) return failureReply(body);
      const result = runPlannedDashboardQuery(context.store, body.value, context.clock.now(), context.plan);
      if (!result.ok) return failureReply(result);
      return result.value === null ? emptyOk() : json(200, result.value);
    }),
  );
}

async function dashboardStatsKey(request: EmulatorRequest): Promise<string> {
  const body = await request.json();
  return body.ok ? canonicalJson(body.value) : '';
}
