/**
 * The feed's guard (issue 35 item 1): whatever the tables write, a feed reads
 * at most once per refresh (newer numbers) plus twice per pulse, so no
 * stream of writes can run the event loop hot through it.
 */
import type { FeedReadTrigger } from '../../src/kernel/observer';
import { LatestQueue } from '../../src/reporting/live/latestQueue';
import { FanOut } from '../../src/reporting/live/fanOut';
import { LiveFeed, type Emission } from '../../src/reporting/live/liveFeed';
import { TableRefreshes } from '../../src/reporting/tables/refreshes';
import { FakeClock, settle } from '../reporting/support/tablesFakes';

const PULSE_MS = 2_500;
const TABLE = 'the-table';

function startFeed(fanOut = new FanOut(), refreshes = new TableRefreshes()) {
  const clock = new FakeClock(1_000_000);
  const reads: FeedReadTrigger[] = [];
  const counted = { reads: 0 };
  let value = 0;
  const read = async () => {
    counted.reads += 1;
    return value;
  };
  const feed = new LiveFeed<number>(
    { key: 'feed', table: TABLE, read, same: (a, b) => a === b },
    { refreshes, clock, askDeadlineMs: 20_000, pulseMs: PULSE_MS, fanOut, onRead: (trigger) => reads.push(trigger) },
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
    /** The numbers the next read gives, without an event. */
    set(newValue: number) {
      value = newValue;
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

it("serves a refresh's subscribers a slice per turn of the event loop, across feeds, so thousands never hold it at once", async () => {
  // Ten feeds of one table, twenty subscribers each: each feed's share is small, their sum is not.
  const fanOut = new FanOut();
  const refreshes = new TableRefreshes();
  const feeds = Array.from({ length: 10 }, () => startFeed(fanOut, refreshes));
  await settle();
  const order: string[] = [];
  // A probe (a health check, another socket) asking for the loop's next turn once the refresh has begun to fan out:
  // scheduled from the first push, so it cannot run before the fan-out started, whatever the timers' phase.
  let probeScheduled = false;
  const scheduleProbe = () => {
    if (probeScheduled) return;
    probeScheduled = true;
    setTimeout(() => order.push('probe'), 0);
  };
  const subscribers = feeds.flatMap((live, feed) =>
    Array.from({ length: 20 }, (_, index) => {
      const subscriber = new LatestQueue<Emission<number>>({ onDeliver: () => undefined, onEnd: () => undefined });
      void (async () => {
        for await (const emission of subscriber) {
          // Each emission costs its subscriber some work (its execution and serialization): 200 of them, milliseconds.
          busy(0.2);
          if ('value' in emission && emission.value === 1) {
            order.push(`${feed}.${index}`);
            scheduleProbe();
          }
        }
      })();
      live.feed.add(subscriber);
      return subscriber;
    }),
  );
  await settle();

  for (const live of feeds) live.set(1);
  refreshes.receive({ key: TABLE, fetchedAt: 6_000 });
  while (order.filter((entry) => entry !== 'probe').length < 200) await settle();
  const probeAt = order.indexOf('probe');
  expect(probeAt).toBeGreaterThan(0);
  expect(probeAt).toBeLessThan(200);
  for (const subscriber of subscribers) subscriber.end();
  for (const live of feeds) live.feed.close();
});

/** Work that never yields, `ms` long. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spinning on purpose
  }
}
