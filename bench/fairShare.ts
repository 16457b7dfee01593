import { EDITORS, WARM_MS, WIDGETS, articles, errorTally, percent, row, runLoad, scrapeSum, SEED, type Ask } from './newsroomLoad';
import { demoUpstreamEnv, spawnEmulator, spawnSubgraph, type SubgraphProcess } from './processes';
import { readStats, resetStats } from './upstreamClient';

/*
 * `npm run bench -- fair-share` (issue 28 item 4): the newsroom of
 * `bench -- newsroom` (bench/newsroomLoad.ts) on one replica, plus one caller
 * sending a distinct `dashboard` every 3 s. The emulator's realistic profile
 * (1 query a minute); the subgraph on its real-host defaults, behind a router
 * secret (CALLER_AUTH=router-secret), every caller named by
 * `apollographql-client-name` as a router forwards it. The greedy caller
 * renames itself on every ask (issue 34): the name is a label only (no
 * CALLER_NAME_HEADER_TRUSTED), so all its asks count in the one share of
 * the callers without a verified identity, `unverified`. Its share
 * is the default: DASHBOARD_SHARE_PER_CALLER (0.2) of one slot a minute over
 * DASHBOARD_SHARE_WINDOW_SECONDS (600 s), 2 slots per 10 minutes.
 * FAIR_SHARE_BENCH_SECONDS (default 300; 30 to check that it runs).
 */

const GREEDY_PERIOD_MS = 3_000;
const ROUTER_SECRET = 'fair-share-bench-router-secret-0123456789';
const CLIENT_NAMES: Record<Ask['kind'], string> = { editor: 'newsroom-editor', widget: 'homepage-widget', greedy: 'greedy-dashboards' };
/** The id every caller without a verified identity shares (src/auth/callers/caller.ts). */
const UNVERIFIED = 'unverified';
/** The defaults this bench runs with (src/config/analytics.ts), for the report's share line. */
const SHARE = 0.2;
const WINDOW_SECONDS = 600;
const SLOTS_PER_MINUTE = 1;

/** A labelled series' value on one replica's /metrics (0 when absent). */
async function scrapeLabelled(replica: SubgraphProcess, line: string): Promise<number> {
  const text = await (await fetch(replica.url.replace(/\/graphql$/, '/metrics'))).text();
  const found = text.split('\n').find((candidate) => candidate.startsWith(`${line} `));
  return found === undefined ? 0 : Number(found.split(' ').pop());
}

async function main(): Promise<void> {
  const seconds = Number(process.env.FAIR_SHARE_BENCH_SECONDS ?? 300);
  const urls = articles();
  process.stdout.write(
    `\n### Fair share (issue 28): the newsroom (${EDITORS} editors, ${WIDGETS} widgets) plus one caller sending a distinct dashboard every ${GREEDY_PERIOD_MS / 1000} s\n\n`,
  );
  const emulator = await spawnEmulator({ EMULATOR_PROFILE: 'realistic', EMULATOR_SEED: String(SEED) });
  try {
    const replica = await spawnSubgraph({
      ...demoUpstreamEnv(emulator.url),
      NODE_ENV: 'production',
      CALLER_AUTH: 'router-secret',
      ROUTER_SECRET,
      // The report reads the unverified callers' series by their id.
      METRICS_CALLER_LABEL: 'raw',
      LOG_LEVEL: 'error',
    });
    try {
      await resetStats(emulator.url);
      const countedFrom = performance.now();
      let renames = 0;
      const asks = await runLoad([replica], urls, seconds, {
        greedyPeriodMs: GREEDY_PERIOD_MS,
        headers: (kind) => ({
          'x-router-secret': ROUTER_SECRET,
          'apollographql-client-name': kind === 'greedy' ? `${CLIENT_NAMES.greedy}-${(renames += 1)}` : CLIENT_NAMES[kind],
        }),
      });
      const countedSeconds = (performance.now() - countedFrom) / 1000;
      const queries = (await readStats(emulator.url)).dashboard.count;
      const rateLimited = await scrapeSum([replica], 'subgraph_upstream_rate_limited_total');
      // Only the greedy caller asks dashboards (the newsroom's asks are table asks, in no share): `unverified` is all its.
      const greedySlots = await scrapeLabelled(replica, `subgraph_reporting_caller_slots_total{caller="${UNVERIFIED}"}`);
      const greedyRefusals = await scrapeLabelled(replica, `subgraph_reporting_caller_refusals_total{caller="${UNVERIFIED}"}`);
      const editors = asks.filter((ask) => ask.kind === 'editor');
      const widgets = asks.filter((ask) => ask.kind === 'widget');
      const greedy = asks.filter((ask) => ask.kind === 'greedy');
      const perWindow = Math.max(1, Math.floor(SHARE * SLOTS_PER_MINUTE * (WINDOW_SECONDS / 60)));
      const share = perWindow * Math.ceil(countedSeconds / WINDOW_SECONDS);
      const lateWidgets = widgets.filter((ask) => ask.atMs >= WARM_MS);
      const lateEditors = editors.filter((ask) => ask.atMs >= WARM_MS);
      process.stdout.write(
        [
          `#### 1 replica, ${seconds} s`,
          '',
          '| asks | count | answered, first 2 min | answered, after | p50 wait after | p95 wait after |',
          '|---|---:|---:|---:|---:|---:|',
          row('editors (all)', editors),
          row('widgets', widgets),
          row('greedy dashboards', greedy),
          '',
          `Newsroom after 2 min: editors answered ${percent(lateEditors.filter((ask) => ask.ok).length, lateEditors.length)} (target ≥ 95 %); ` +
            `widgets answered ${lateWidgets.filter((ask) => ask.ok).length} of ${lateWidgets.length} (target: every one).`,
          '',
          `Vendor dashboard queries: ${queries} in ${countedSeconds.toFixed(0)} s (${((queries * 60) / countedSeconds).toFixed(2)} a minute; target ≤ 1); ` +
            `upstream 429s: ${rateLimited} (target 0).`,
          '',
          `Greedy caller (a new name on each ask: ${renames} names): ${greedy.length} asks, ${greedy.filter((ask) => ask.ok).length} answered; slots spent ${greedySlots} ` +
            `(its share: at most ${perWindow} per ${WINDOW_SECONDS} s, ${share} over this run); ` +
            `refused at once over its share: ${greedyRefusals}.`,
          '',
          `Errors of unanswered asks after 2 min: ${errorTally(asks.filter((ask) => ask.atMs >= WARM_MS && !ask.ok))}.`,
          '',
        ].join('\n'),
      );
    } finally {
      await replica.stop();
    }
  } finally {
    await emulator.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
