import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { analyticsReport, benchAnalytics, type AnalyticsScenario } from './analyticsBench';
import { busiestReaders } from './demoReaders';
import { benchEmulator, paramsPool, startBenchEmulator, type EmulatorFigures } from './emulatorBench';
import { profileSubgraph } from './overhead/profile';
import { overheadReport } from './overhead/report';
import { benchOverhead, startOverheadTargets } from './overhead/scenario';
import { demoUpstreamEnv, spawnSubgraph } from './processes';
import { benchOps, opsReport, type OpsFigures } from './opsBench';
import { fmt } from './stats';
import { benchSubgraph, type SubgraphFigures } from './subgraphBench';
import { supergraphRepetitions, supergraphSeconds } from './supergraph';
import { benchSupergraphTraffic, supergraphReport } from './supergraphTraffic';

/*
 * `npm run bench`: builds, then measures the emulator and the subgraph as
 * separate processes over loopback HTTP, with the default demo data (scale 1),
 * and prints a Markdown report for bench/README.md.
 * `npm run bench -- overhead` runs only the side-by-side overhead scenario,
 * `npm run bench -- profile` only the CPU profile split, `npm run bench -- newsroom`
 * only the newsroom on one query a minute (bench/newsroom.ts), `npm run bench -- live`
 * only the live numbers' subscribers (bench/live.ts), `npm run bench -- live-mixed` its mixed
 * scenario (rankings and panels on five tables), `npm run bench -- live-health` one
 * subscriber at each TTL against /health/live (bench/liveHealth.ts), `npm run bench -- live-flood`
 * 10,000 subscribe/complete pairs on distinct tables (bench/liveFlood.ts), `npm run bench -- fair-share`
 * the newsroom plus one greedy dashboard caller (bench/fairShare.ts), `npm run bench -- side-by-side` this
 * build's and a base build's answers, ask for ask (bench/sideBySide.ts), `npm run bench -- profile-side-by-side`
 * the raw path's CPU profile beside the minimal subgraph's (bench/overhead/profilesSideBySide.ts), `npm run bench -- gc-trace`
 * the raw path's young-generation collections beside the minimal subgraph's (bench/overhead/gcTrace.ts). The whole run ends
 * with the replicas and response-cache scenarios, each its own script
 * (`npm run bench:replicas`, `npm run bench:response-cache`).
 */

const SEED = 42;
const SCENARIOS = [
  'all',
  'overhead',
  'profile',
  'newsroom',
  'live',
  'live-mixed',
  'live-health',
  'live-flood',
  'fair-share',
  'side-by-side',
  'profile-side-by-side',
  'gc-trace',
] as const;

async function main(): Promise<void> {
  const scenario = process.argv[2] ?? 'all';
  if (!(SCENARIOS as readonly string[]).includes(scenario)) throw new Error(`unknown scenario ${scenario}; one of ${SCENARIOS.join(', ')}`);
  // The newsroom scenario (issue 21) runs alone: about 11 minutes against the realistic profile's real budget.
  if (scenario === 'newsroom') return runScript('newsroom.ts');
  // The live numbers scenario (issue 30) runs alone too: 500 subscribers for LIVE_BENCH_SECONDS (default 5 minutes).
  if (scenario === 'live') return runScript('live.ts');
  // The mixed live numbers (issue 35): rankings and article panels on five tables, each table's worst age.
  if (scenario === 'live-mixed') return runScript('live.ts', ['mixed']);
  // One subscriber at each TTL against /health/live (issue 35), 5 minutes.
  if (scenario === 'live-health') return runScript('liveHealth.ts');
  // 10,000 subscribe/complete pairs on distinct tables (issue 35): vendor queries, /health/live, RSS, about 4 minutes.
  if (scenario === 'live-flood') return runScript('liveFlood.ts');
  // The fair share (issue 28): the newsroom plus one greedy dashboard caller, about 5 minutes.
  if (scenario === 'fair-share') return runScript('fairShare.ts');
  // This build and a base build (SIDE_BY_SIDE_BASE) given the newsroom's asks and live subscribers side by side (issue 37).
  if (scenario === 'side-by-side') return runScript('sideBySide.ts');
  // The raw path's CPU profile, this subgraph's and the minimal one's, group by group (issue 38).
  if (scenario === 'profile-side-by-side') return runScript('overhead/profilesSideBySide.ts');
  // The raw path's scavenges, this subgraph's and the minimal one's: allocated, survived and promoted a request (issue 38).
  if (scenario === 'gc-trace') return runScript('overhead/gcTrace.ts');
  if (scenario === 'all') await benchEmulatorAndSubgraph();
  if (scenario !== 'profile') await printOverhead();
  if (scenario !== 'overhead') process.stdout.write(`\n${await profileSubgraph()}`);
  if (scenario === 'all') for (const script of ['replicasBench.ts', 'responseCache.ts']) await runScript(script);
}

/** A scenario with a script of its own, in a process of its own, its report on this one's output. */
async function runScript(script: string, args: string[] = []): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, script), ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`bench/${script} exited with ${code}`);
}

async function printOverhead(): Promise<void> {
  const targets = await startOverheadTargets([], process.env.BENCH_PREVIOUS_BUILD);
  try {
    process.stdout.write(`\n### Overhead: this subgraph vs a minimal Apollo Server 5 subgraph, same trivial upstream\n\n`);
    process.stdout.write(overheadReport(await benchOverhead(targets)));
  } finally {
    await targets.stop();
  }
}

async function benchEmulatorAndSubgraph(): Promise<void> {
  const clients = busiestReaders(SEED, 1, 40);
  const emulator = await startBenchEmulator(SEED);
  try {
    const pool = await paramsPool(emulator, clients);
    const emulatorFigures = await benchEmulator(emulator, pool);
    const subgraph = await spawnSubgraph({
      NODE_ENV: 'production',
      // Open on purpose: a bench (or test) is the only caller.
      CALLER_AUTH: 'none',
      // Per-operation logs off: the figures are the subgraph's work, not the terminal's.
      LOG_LEVEL: 'warn',
      ...demoUpstreamEnv(emulator.url),
      // These scenarios measure one operation's calls and the per-call overhead: every call reaches the
      // (unlimited) emulator. The shared cache and the budgets are measured by the supergraph traffic scenario.
      RENDER_CACHE_TTL_SECONDS: '0',
      DASHBOARD_CACHE_TTL_SECONDS: '0',
      REPORTING_RATE_PER_MINUTE: '1000000000',
      SIGNIN_RATE_PER_MINUTE: '1000000000',
      RENDER_RATE_PER_MINUTE: '1000000000',
    });
    try {
      const subgraphFigures = await benchSubgraph(emulator, subgraph, pool);
      const analyticsFigures = await benchAnalytics(emulator, subgraph);
      await subgraph.stop();
      const opsFigures = await benchOps(emulator, pool, { memory: true });
      process.stdout.write(report(emulatorFigures, subgraphFigures, opsFigures, analyticsFigures));
    } finally {
      await subgraph.stop();
    }
  } finally {
    await emulator.stop();
  }
  const seconds = supergraphSeconds();
  const repetitions = supergraphRepetitions();
  process.stdout.write(supergraphReport(seconds, repetitions, await benchSupergraphTraffic(seconds, repetitions)));
}

function report(e: EmulatorFigures, s: SubgraphFigures, o: OpsFigures, analytics: readonly AnalyticsScenario[]): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    `Node ${process.version}, ${cpus().length} × ${cpu}, ${new Date().toISOString().slice(0, 10)}`,
    '',
    '### Emulator (default demo data, scale 1)',
    '',
    '| measure | value | target |',
    '|---|---|---|',
    `| start-up, spawn to listening | ${e.startupMs.toFixed(0)} ms | < 3 s |`,
    `| RSS after start-up / after the load below (peak) | ${e.memoryAfterStart.rss.toFixed(0)} MiB / ${e.memoryAfterLoad.rss.toFixed(0)} MiB (${e.memoryAfterLoad.peak.toFixed(0)} MiB) | < 500 MB |`,
    `| dashboard, 30 days by url, 2 metrics: first / p50 / max of 25 | ${fmt(e.dashboardColdMs)} / ${fmt(e.dashboard.p50)} / ${fmt(e.dashboard.max)} | < 150 ms |`,
    `| render.json, all 11 experiences mixed, 8 in flight | p50 ${fmt(e.renderMixed.p50)}, p99 ${fmt(e.renderMixed.p99)}, ${e.renderMixed.throughputPerSecond.toFixed(0)} req/s, ${e.renderMixed.errors} errors | |`,
    '',
    'render.json over HTTP, one request at a time, 1,000 requests per experience (rotating canonical URLs and the 40 busiest readers):',
    '',
    '| profile | domain | p50 | p99 | max | errors |',
    '|---|---|---|---|---|---|',
    ...e.renderByProfile.map(
      ({ profile, domain, result: r }) => `| ${profile} | ${domain} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.max)} | ${r.errors} |`,
    ),
    '',
    '### Subgraph (its own process, remote mode against the emulator)',
    '',
    '| upstream efficiency | distinct parameter sets | upstream calls |',
    '|---|---|---|',
    ...s.efficiency.map((x) => `| ${x.scenario} | ${x.distinct} | ${x.calls} |`),
    `| sign-ins for the first reporting operation | – | ${s.signIns.first} |`,
    `| sign-ins for the next ${s.signIns.operations.toLocaleString('en')} dashboard operations (16 in flight) | – | ${s.signIns.signIns} |`,
    `| sign-ins for ${s.signIns.afterExpiry.operations.toLocaleString('en')} operations after the emulator clock passed the token's expiry | – | ${s.signIns.afterExpiry.signIns} |`,
    '',
    '| overhead: `recommendations` vs render.json, same parameters | direct p50 / p99, throughput | subgraph p50 / p99, throughput | added p50 | ratio p50 | ratio throughput |',
    '|---|---|---|---|---|---|',
    ...s.overhead.map(
      ({ concurrency, direct: d, subgraph: g }) =>
        `| ${concurrency} in flight, 3,000 requests | ${fmt(d.p50)} / ${fmt(d.p99)}, ${d.throughputPerSecond.toFixed(0)}/s | ` +
        `${fmt(g.p50)} / ${fmt(g.p99)}, ${g.throughputPerSecond.toFixed(0)}/s | ${fmt(g.p50 - d.p50)} | ` +
        `${(g.p50 / d.p50).toFixed(2)} | ${(g.throughputPerSecond / d.throughputPerSecond).toFixed(2)} |`,
    ),
    ...opsReport(o),
    '',
    ...analyticsReport(analytics),
  ];
  return `${lines.join('\n')}\n`;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
