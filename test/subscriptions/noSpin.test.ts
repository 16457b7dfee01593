/**
 * One subscriber never runs the replica hot (issue 35 item 1), over a real
 * socket at several DASHBOARD_CACHE_TTL_SECONDS. Its feed reads its table on
 * the pulse (a quarter of the TTL) and once per refresh; past half the TTL
 * each read asks for a refresh. While the window stays put (an hour here),
 * the answer cache holds the very answer the table holds: such a refresh
 * brings nothing, so it must cost at most a look at the answer cache, never
 * a write announced as a refresh (which made the feed read again, ask again,
 * and loop with no timer between turns until the cached answer expired).
 * Counted, not timed: the answer cache's events and the feeds' reads, per
 * pulse and per refresh, on an injected clock.
 */
import { TimeUnit } from '../../contract';
import { topArticlesSpec, toTopArticlesRequest } from '../../src/reporting/analytics/topArticles';
import { DEFAULT_CACHE_TTLS } from '../support/subgraph';
import { registryValue } from './support/registryValue';
import { startLiveOverHttp, SLOT_MS, type LiveOverHttp } from './support/liveOverHttp';
import { subscribe } from './support/subscriber';

jest.setTimeout(120_000);

const TOP_ONE = `subscription { topArticles(limit: 1) { rank value fetchedAt from to } }`;
const DAY_TABLE = topArticlesSpec(toTopArticlesRequest({ window: { last: { number: 1, unit: TimeUnit.DAY } }, limit: 1 })).key;
const DASHBOARD = '/api/dashboard/query';

let live: LiveOverHttp | undefined;

afterEach(async () => {
  await live?.close();
  live = undefined;
});

/** The feeds' pulse at this TTL: a quarter of it, within 1 s and 30 s (src/reporting/live/liveNumbers.ts). */
function pulseMsOf(ttlSeconds: number): number {
  return Math.min(30_000, Math.max(1_000, (ttlSeconds * 1000) / 4));
}

async function cacheEvents(): Promise<number> {
  const registry = live!.metrics.registry;
  const counts = await Promise.all(
    ['hit', 'stale', 'coalesced'].map((result) =>
      registryValue(registry, 'subgraph_upstream_cache_events_total', { endpoint: DASHBOARD, result }),
    ),
  );
  return counts.reduce((a, b) => a + b, 0);
}

async function feedReads(trigger: string): Promise<number> {
  return registryValue(live!.metrics.registry, 'subgraph_subscription_feed_reads_total', { trigger });
}

it.each([1, 10, 30, 60])(
  'at DASHBOARD_CACHE_TTL_SECONDS=%i a subscriber costs a read per pulse and per refresh, never a loop of cached answers',
  async (ttlSeconds) => {
    live = await startLiveOverHttp({ cache: { ...DEFAULT_CACHE_TTLS, dashboardTtlSeconds: ttlSeconds } }, {}, {}, { tablesOverIo: true });
    // Just past the hour the windows align on: the day's window stays put for the rest of the test.
    await live.advanceBoth(31_000);
    const refreshes = new Set<number>();
    const announced: number[] = [];
    live.refreshes.on(DAY_TABLE, (event) => {
      announced.push(event.fetchedAt);
      refreshes.add(event.fetchedAt);
    });
    const top = subscribe<{ topArticles: { fetchedAt: string; from: string; to: string }[] }>(live.wsUrl, TOP_ONE);
    const [first] = await top.received(1);
    expect(first.errors).toBeUndefined();
    expect(first.data?.topArticles[0].fetchedAt).toEqual(expect.any(String));
    const eventsBefore = await cacheEvents();

    // Two slots of the budget, pulse by pulse: the table passes half its TTL, its TTL and (but at 60) its staleness for the answer cache.
    const pulseMs = pulseMsOf(ttlSeconds);
    const pulses = Math.ceil((2 * SLOT_MS) / pulseMs);
    for (let pulse = 0; pulse < pulses; pulse += 1) await live.advanceBoth(pulseMs);

    // Each pulse: one read, one refresh asked, at most a look at the answer cache and the stale answer it serves while
    // it revalidates; each refresh (a write with newer numbers): one more read. Nothing more, whatever the TTL.
    const events = (await cacheEvents()) - eventsBefore;
    expect(events).toBeLessThanOrEqual(2 * pulses + 2 * refreshes.size);
    expect(await feedReads('pulse')).toBeLessThanOrEqual(pulses);
    expect(await feedReads('refresh')).toBeLessThanOrEqual(refreshes.size);
    expect(await feedReads('subscriber')).toBe(1);
    // A refresh that brought nothing newer (the answer cache's copy of the table's own numbers) is neither written nor announced.
    expect(announced).toEqual([...refreshes].sort((a, b) => a - b));
    // At most one vendor query a slot, each answered (the governor's budget held: no 429).
    expect(live.recorder.dashboards.length).toBeLessThanOrEqual(3);
    expect(new Set(live.recorder.dashboardStatuses)).toEqual(new Set([200]));
    await top.dispose();
  },
);
