/**
 * A reporting budget that always has a slot, for fakes of the dashboard
 * endpoint whose tests are not about the budget: the budget queue still
 * grants each attempt through it, so its shares count them as before.
 */
import type { SlotBudget } from '../../src/upstream/endpoints/dashboard';

export function freeBudget(): SlotBudget {
  return { take: async () => undefined, freeInMs: async () => 0, onSharedAgain: () => () => undefined };
}
