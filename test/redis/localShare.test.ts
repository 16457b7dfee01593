/**
 * A replica's share of a budget it cannot share (localShare.ts), on plain
 * numbers: below one a minute the replicas take turns, one request a turn for
 * the cluster, and a 429's pause holds every turn until it ends.
 */
import { LocalShare } from '../../src/redis/upstream/localShare';
import { RATE_WINDOW_MS } from '../../src/upstream/stores/rateStore';

const T0 = Date.UTC(2026, 10, 25, 9);
const KEY = 'reporting:acct';

/** Replicas (rank = index, of 3) asking every second for `seconds` from `from`; the grants in order. */
function askEverySecond(shares: LocalShare[], perMinute: number, from: number, seconds: number) {
  const grants: { at: number; rank: number }[] = [];
  for (let second = 0; second < seconds; second += 1) {
    const at = from + second * 1000;
    for (const [rank, share] of shares.entries()) {
      // Waiting up to a second: a turn may start between two asks (every 31.5 s at two a minute).
      const reservation = share.reserve(KEY, perMinute, { replicas: 3, rank }, at, 999);
      if (reservation.granted) grants.push({ at: at + reservation.waitMs, rank });
    }
  }
  return grants;
}

describe('a local share below one a minute', () => {
  test('two a minute over three replicas: one request a half-turn for the cluster, round the ranks', () => {
    const shares = [new LocalShare(), new LocalShare(), new LocalShare()];
    const grants = askEverySecond(shares, 2, T0, 600);

    const gaps = grants.slice(1).map((grant, index) => grant.at - grants[index].at);
    expect(Math.min(...gaps)).toBe(RATE_WINDOW_MS / 2);
    expect(grants.length).toBeGreaterThanOrEqual(18);
    expect(
      grants
        .slice(0, 3)
        .map((grant) => grant.rank)
        .sort(),
    ).toEqual([0, 1, 2]);
  });

  test('a 429 seen by every replica holds every turn until its pause ends', () => {
    const shares = [new LocalShare(), new LocalShare(), new LocalShare()];
    const pausedUntil = T0 + 5 * 60_000;
    for (const [rank, share] of shares.entries()) share.pause(KEY, 1, { replicas: 3, rank }, pausedUntil);
    const grants = askEverySecond(shares, 1, T0, 600);

    expect(grants[0].at).toBeGreaterThanOrEqual(pausedUntil);
    const gaps = grants.slice(1).map((grant, index) => grant.at - grants[index].at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(RATE_WINDOW_MS);
  });

  test('what was spent locally since the shared bucket was last seen is reported until it is seen again', () => {
    const share = new LocalShare();
    share.saw(KEY, T0);
    expect(share.spentUnseen()).toEqual([]);
    const grants = askEverySecond([share], 1, T0, 200);
    expect(grants.length).toBeGreaterThan(0);

    expect(share.spentUnseen()).toEqual([[KEY, grants[grants.length - 1].at + RATE_WINDOW_MS]]);
    share.saw(KEY, T0 + 300_000);
    expect(share.spentUnseen()).toEqual([]);
  });
});

describe('a look at the shared bucket', () => {
  test('keeps a local spend the shared bucket has not seen (to be charged), at the later "full at" of the two; a spend seen by a step is not charged again', () => {
    const share = new LocalShare();
    const seat = { replicas: 1, rank: 0 };
    share.saw(KEY, 0);
    expect(share.reserve(KEY, 1, seat, T0, 0)).toEqual({ granted: true, waitMs: 0 });
    expect(share.spentUnseen()).toEqual([[KEY, T0 + RATE_WINDOW_MS]]);

    // Redis restarted empty (or refusing the script): the look reads an empty bucket.
    share.looked(KEY, 0);
    expect(share.spentUnseen()).toEqual([[KEY, T0 + RATE_WINDOW_MS]]);
    expect(share.reserve(KEY, 1, seat, T0 + 5_000, 0)).toEqual({ granted: false, retryAfterMs: RATE_WINDOW_MS - 5_000 });
    share.looked(KEY, T0 + 2 * RATE_WINDOW_MS);
    expect(share.spentUnseen()).toEqual([[KEY, T0 + 2 * RATE_WINDOW_MS]]);

    // The charge (or a step there) is what sees the bucket: nothing left unseen; later looks follow the bucket.
    share.saw(KEY, T0 + 2 * RATE_WINDOW_MS);
    expect(share.spentUnseen()).toEqual([]);
    share.looked(KEY, 0);
    expect(share.reserve(KEY, 1, seat, T0 + 5_000, 0)).toEqual({ granted: true, waitMs: 0 });
  });
});
