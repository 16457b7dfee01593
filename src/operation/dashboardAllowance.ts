import DataLoader from 'dataloader';
import type { DashboardEndpoint } from '../upstream/endpoints/dashboard';
import type { DashboardQueryBody } from '../kernel/wire';
import { dashboardBodyKey } from '../upstream/keys';
import type { DashboardAnswer } from '../kernel/fetched';
import { asError, type DashboardAsker } from '../reporting/dashboard/dashboardAsks';
import { servedFromCache } from './cacheHits';
import type { UpstreamAllowance } from './upstreamAllowance';

/**
 * The dashboard endpoint for one operation. A DataLoader keyed by the body's
 * part of the answer key (keys.ts) de-duplicates identical queries, and its
 * end-of-tick batch (no timer: nothing waits for asks that may never come)
 * hands the asker every group of bodies that may share one query, those that
 * differ only in their metrics: one operation with several dashboard panels
 * of one window sends one query carrying the union.
 *
 * The allowance counts each distinct body once, merged or not, just as 500
 * aliased `dashboard` fields with different arguments are 500 calls; a body
 * answered from the answer cache gives its call back. Per request only: its
 * cache holds this caller's answers.
 */
export function withDashboardAllowance(asker: DashboardAsker, allowance: UpstreamAllowance): DashboardEndpoint {
  const loader = new DataLoader<DashboardQueryBody, DashboardAnswer, string>(
    async (bodies) => {
      const answers = new Array<DashboardAnswer | Error>(bodies.length);
      const groups = new Map<string, number[]>();
      bodies.forEach((body, index) => {
        if (!allowance.tryTake()) {
          answers[index] = allowance.exceededError();
          return;
        }
        const group = asker.groupOf(body);
        groups.set(group, [...(groups.get(group) ?? []), index]);
      });
      await Promise.all(
        [...groups.values()].map(async (indexes) => {
          const results = await asker
            .ask(indexes.map((index) => bodies[index]))
            .catch((error: unknown) => indexes.map(() => asError(error)));
          indexes.forEach((index, position) => {
            const result = results[position];
            if (!(result instanceof Error) && servedFromCache(result)) allowance.recordCacheHit();
            answers[index] = result;
          });
        }),
      );
      return answers;
    },
    { cacheKeyFn: dashboardBodyKey, name: 'dashboard' },
  );
  return { query: (body) => loader.load(body) };
}
