/**
 * The feed's guard (issue 35 item 1): whatever the tables write, a feed reads
 * at most once per refresh (newer numbers) plus twice per pulse, so no
 * stream of writes can run the event loop hot through it.
 */
import type { FeedReadTrigger } from '../../src/observability/metrics/subscriptions';
import { LatestQueue } from '../../src/reporting/live/latestQueue';
import { LiveFeed, type Emission } from '../../src/reporting/live/liveFeed';
import { TableRefreshes } from '../../src/reporting/tables/refreshes';
import { FakeClock, settle } from '../reporting/support/tablesFakes';

const PULSE_MS = 2_500;
const TABLE = 'the-table';

function startFeed() {
  const clock = new FakeClock(1_000_000);
  const refreshes = new TableRefreshes();
  const reads: FeedReadTrigger[] = [];
  const counted = { reads: 0 };
  let value = 0;
  const read = async () => {
    counted.reads += 1;
    return value;
  };
  const feed = new LiveFeed<number>(
    { key: 'feed', table: TABLE, read, same: (a, b) => a === b },
    { refreshes, clock, askDeadlineMs: 20_000, pulseMs: PULSE_MS, onRead: (trigger) => reads.push(trigger) },
    () => undefined,
  );
  const emissions: Emission<number>[] = [];
  const subscriber = new LatestQueue<Emission<number>>({ onDeliver: () => undefined, onEnd: () => undefined });
  void (async () => {
    for await (const emission of subscriber) emissions.push(emission);
  })();
  feed.add(subscriber);
  return {
    clock,
    counted,
    reads,
    emissions,
    feed,
    /** A write of the table: its event, then the feed's read settled. */
    async written(fetchedAt: number, newValue = value) {
      value = newValue;
      refreshes.receive({ key: TABLE, fetchedAt });
      await settle();
    },
  };
}

it('reads once per newer write, and once a pulse for writes no newer (the same numbers written again and again)', async () => {
  const live = startFeed();
  await settle();
  expect(live.counted.reads).toBe(1);

  for (let turn = 0; turn < 1_000; turn += 1) await live.written(5_000);
  // The first write of 5000 is a refresh; the 999 repeats are one read between them.
  expect(live.counted.reads).toBe(3);

  await live.clock.advance(PULSE_MS);
  for (let turn = 0; turn < 100; turn += 1) await live.written(5_000);
  expect(live.counted.reads).toBe(5);

  // Newer numbers are read each time, and a change reaches the subscriber.
  for (let turn = 1; turn <= 5; turn += 1) await live.written(5_000 + turn, turn);
  expect(live.counted.reads).toBe(10);
  expect(live.reads).toEqual(['subscriber', 'refresh', 'refresh', 'pulse', 'refresh', ...Array(5).fill('refresh')]);
  expect(live.emissions.map((emission) => ('value' in emission ? emission.value : emission.error.message))).toEqual([0, 1, 2, 3, 4, 5]);
  live.feed.close();
});
