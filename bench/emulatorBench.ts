import { runLoad, type LoadResult } from './load';
import { memoryMiB, spawnEmulator, type EmulatorProcess } from './processes';
import { summarize, type LatencySummary } from './stats';
import { dashboardQuery, signIn, topUrls } from './upstreamClient';

export interface RenderParamsPool {
  /** Top article URLs per domain. */
  urls: Map<string, string[]>;
  clients: string[];
}

export interface EmulatorFigures {
  startupMs: number;
  memoryAfterStart: { rss: number; peak: number };
  memoryAfterLoad: { rss: number; peak: number };
  renderByProfile: { profile: string; domain: string; result: LoadResult }[];
  renderMixed: LoadResult;
  dashboardColdMs: number;
  dashboard: LatencySummary;
}

/** Limits high enough that the benchmark measures work, not the emulator's 429s. */
const UNLIMITED_RATES = {
  EMULATOR_REPORTING_RATE_PER_MINUTE: '1000000000',
  EMULATOR_SIGNIN_RATE_PER_MINUTE: '1000000000',
  EMULATOR_RENDER_RATE_PER_MINUTE: '1000000000',
};

export async function startBenchEmulator(seed: number): Promise<EmulatorProcess> {
  return spawnEmulator({ EMULATOR_SEED: String(seed), ...UNLIMITED_RATES });
}

export async function paramsPool(emulator: EmulatorProcess, clients: string[]): Promise<RenderParamsPool> {
  const token = await signIn(emulator.url);
  const urls = new Map<string, string[]>();
  for (const domain of new Set(emulator.experiences.map((e) => e.domain))) {
    urls.set(domain, await topUrls(emulator.url, token, domain, 50));
  }
  return { urls, clients };
}

/** render.json request `i` of an experience: rotating canonical URLs and readers, so few repeat. */
export function renderUrl(baseUrl: string, experience: { id: string; domain: string }, pool: RenderParamsPool, i: number): string {
  const urls = pool.urls.get(experience.domain)!;
  const params = new URLSearchParams({
    id: experience.id,
    canonical_url: urls[(i % 17) % urls.length],
    client_id: pool.clients[i % pool.clients.length],
  });
  return `${baseUrl}/recommenderexperience/render.json?${params}`;
}

export async function benchEmulator(emulator: EmulatorProcess, pool: RenderParamsPool): Promise<EmulatorFigures> {
  const memoryAfterStart = memoryMiB(emulator.pid);

  // Latency per profile, one request at a time: what one subgraph call waits.
  const renderByProfile = [];
  for (const experience of emulator.experiences) {
    const result = await runLoad({
      concurrency: 1,
      requests: 1000,
      warmup: 100,
      build: (i) => ({ method: 'GET', url: renderUrl(emulator.url, experience, pool, i) }),
    });
    renderByProfile.push({ profile: experience.rankingProfile, domain: experience.domain, result });
  }
  // All experiences mixed under concurrency, as a busy subgraph would call them.
  const experiences = emulator.experiences;
  const renderMixed = await runLoad({
    concurrency: 8,
    requests: 5000,
    warmup: 200,
    build: (i) => ({ method: 'GET', url: renderUrl(emulator.url, experiences[i % experiences.length], pool, i) }),
  });

  const token = await signIn(emulator.url);
  const byUrl = (metrics: string[]) => ({
    dates: { last: { number: 30, dimension: 'day' } },
    filters: [],
    groupBy: ['url'],
    metrics,
    order: { metric: metrics[0], sort: 'DESC' },
    granularity: 'daily',
  });
  let started = performance.now();
  await dashboardQuery(emulator.url, token, byUrl(['pageViewsTotal', 'uniqueUsers']));
  const dashboardColdMs = performance.now() - started;
  // Different metric pairs each time, so no answer can come from a cache.
  const pairs = [
    ['pageViewsTotal', 'uniqueUsers'],
    ['totalDuration', 'averageScroll'],
    ['revenueTotal', 'adsImpressions'],
    ['averageDurationPerUser', 'pageViewsPerUser'],
    ['cumulativeRFV', 'CPM'],
  ];
  const samples: number[] = [];
  for (let i = 0; i < 25; i++) {
    started = performance.now();
    await dashboardQuery(emulator.url, token, byUrl(pairs[i % pairs.length]));
    samples.push(performance.now() - started);
  }

  return {
    startupMs: emulator.startupMs,
    memoryAfterStart,
    memoryAfterLoad: memoryMiB(emulator.pid),
    renderByProfile,
    renderMixed,
    dashboardColdMs,
    dashboard: summarize(samples),
  };
}
