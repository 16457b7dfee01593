/**
 * Runs `work` for every item with at most `limit` calls in flight, and
 * settles each one separately: one failure must not hide the others' results.
 * (p-limit would do, but it is ESM-only and this project compiles to CommonJS.)
 */
export async function settleWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`settleWithConcurrency: limit must be an integer >= 1, got ${limit}`);
  }
  // One item (an operation's usual batch): its own settlement, without runners, Promise.all and their promises
  // kept alive across the upstream wait (the raw path's profile at 50 in flight).
  if (items.length === 1) return settleOne(work, items[0]);
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  // Each runner takes the next unstarted item when its previous one settles,
  // so the number of calls in flight never exceeds the number of runners.
  const runner = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = { status: 'fulfilled', value: await work(items[index], index) };
      } catch (reason) {
        results[index] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runner));
  return results;
}

function settleOne<T, R>(work: (item: T, index: number) => Promise<R>, item: T): Promise<PromiseSettledResult<R>[]> {
  let started: Promise<R>;
  try {
    started = work(item, 0);
  } catch (reason) {
    // As the runners do: a synchronous throw is that item's rejection, not the batch's.
    return Promise.resolve([{ status: 'rejected', reason }]);
  }
  return started.then(
    (value): PromiseSettledResult<R>[] => [{ status: 'fulfilled', value }],
    (reason: unknown): PromiseSettledResult<R>[] => [{ status: 'rejected', reason }],
  );
}
