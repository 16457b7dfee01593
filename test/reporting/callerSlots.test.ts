/**
 * The fair share's ledger (src/reporting/budget/callerSlots.ts): this replica's own
 * charges and what it learned from the shared ledger (other replicas'),
 * each slot counted once, by id; a charge of its own is never dropped by
 * what it learns.
 */
import { CallerSlots } from '../../src/reporting/budget/callerSlots';

const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);
const WINDOW_MS = 60_000;

test("a caller's learned charges count beside its own, each slot once; its own stay whatever is learned", () => {
  const ledger = new CallerSlots(2, WINDOW_MS);
  const own = ledger.charge(['greedy'], NOW - 10_000);
  expect(ledger.roomAt('greedy', NOW)).toBe(NOW);

  // The shared ledger holds this replica's slot and another replica's: two slots, no room until the older leaves the window.
  ledger.learnCaller('greedy', [
    { id: own.id, at: own.at, slots: 1 },
    { id: 'other-replica:1', at: NOW - 20_000, slots: 1 },
  ]);
  expect(ledger.roomAt('greedy', NOW)).toBe(NOW - 20_000 + WINDOW_MS);

  // Learning nothing (the shared ledger lost its key) keeps this replica's own charge.
  ledger.learnCaller('greedy', []);
  expect(ledger.roomAt('greedy', NOW)).toBe(NOW);
  ledger.charge(['greedy'], NOW);
  expect(ledger.roomAt('greedy', NOW)).toBe(NOW - 10_000 + WINDOW_MS);
});

test("all callers together: the shared count with this replica's slots not yet in it, or its own, whichever is more", () => {
  const ledger = new CallerSlots(3, WINDOW_MS);
  expect(ledger.roomForAll(NOW)).toBe(true);

  // Another replica's callers spent three slots: no room for all, though this replica spent none.
  ledger.learnSpent(3, NOW);
  expect(ledger.roomForAll(NOW)).toBe(false);

  // One slot in the cluster, and one of this replica's not written yet: two.
  ledger.learnSpent(1, NOW);
  const slot = ledger.charge(['a', 'b'], NOW);
  expect(ledger.roomForAll(NOW)).toBe(true);
  const next = ledger.charge(['a'], NOW);
  expect(ledger.roomForAll(NOW)).toBe(false);
  // Once both are written, the next read (three) counts them once, not twice.
  ledger.shared(slot.id);
  ledger.shared(next.id);
  ledger.learnSpent(3, NOW);
  expect(ledger.roomForAll(NOW)).toBe(false);
  ledger.learnSpent(2, NOW);
  expect(ledger.roomForAll(NOW)).toBe(true);

  // This replica's own slots count even when the shared ledger says less (it lost them).
  ledger.learnSpent(0, NOW);
  expect(ledger.roomForAll(NOW)).toBe(true);
  ledger.charge(['c'], NOW);
  expect(ledger.roomForAll(NOW)).toBe(false);

  // A count read longer ago than the window says nothing about now; this replica's own slots have left the window too.
  ledger.learnSpent(5, NOW);
  expect(ledger.roomForAll(NOW + WINDOW_MS)).toBe(true);
});
