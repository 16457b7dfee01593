import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { spawnListening, subgraphEnvOver } from './processes';
import { loadGraphQL } from './scenario';
import { freePort, waitReady } from '../processes';

/*
 * The raw path's garbage collection, this subgraph against the minimal one (issue 38, item 1):
 *   npm run bench -- gc-trace      # GC_TRACE_IN_FLIGHT (50), GC_TRACE_REQUESTS (10,000), GC_TRACE_NODE_ARGS
 * Both run under `node --trace-gc-nvp` over the overhead scenario's trivial upstream, one after the other, each
 * after 2,000 requests of warm-up; only the collections inside each one's measured load count. Printed per
 * process: scavenges, and a request's KB allocated, promoted to the old generation and kept in the young one by
 * scavenges, and its pauses. GC_TRACE_NODE_ARGS (space-separated) are given to this subgraph only, e.g.
 * `--max-semi-space-size=64 --min-semi-space-size=64`; GC_TRACE_ENTRY runs another build's `dist/src/index.js`;
 * GC_TRACE_DUMP=<file> appends every line both print in their measured windows.
 */

const IN_FLIGHT = Number(process.env.GC_TRACE_IN_FLIGHT ?? 50);
const REQUESTS = Number(process.env.GC_TRACE_REQUESTS ?? 10_000);
const OURS_ARGS = (process.env.GC_TRACE_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
/** Every line the processes print in their measured windows (e.g. of `--trace-pretenuring-statistics`), appended here. */
const DUMP = process.env.GC_TRACE_DUMP;
const ENTRY = process.env.GC_TRACE_ENTRY ?? join(__dirname, '..', '..', 'dist/src/index.js');

type Collection = Record<string, string>;

/** Collects the `--trace-gc-nvp` lines of a child's stdout while `recording` is on. */
function recorder(child: ChildProcess): { start(): void; stop(): Collection[] } {
  let recording = false;
  let lines: Collection[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (recording && DUMP !== undefined) appendFileSync(DUMP, `${line}\n`);
    if (!recording || !line.includes('gc=')) return;
    const fields: Collection = {};
    for (const pair of line.trim().split(/\s+/)) {
      const at = pair.indexOf('=');
      if (at > 0) fields[pair.slice(0, at)] = pair.slice(at + 1);
    }
    lines.push(fields);
  });
  return {
    start: () => {
      recording = true;
      lines = [];
    },
    stop: () => {
      recording = false;
      return lines;
    },
  };
}

function summary(name: string, collections: Collection[]): string {
  const scavenges = collections.filter((c) => c.gc === 's');
  const others = collections.filter((c) => c.gc !== 's');
  const sum = (list: Collection[], field: string) => list.reduce((total, c) => total + Number(c[field] ?? 0), 0);
  const perRequestKb = (list: Collection[], field: string) => (sum(list, field) / 1024 / REQUESTS).toFixed(1);
  const perScavengeKb = (field: string) => (sum(scavenges, field) / 1024 / Math.max(1, scavenges.length)).toFixed(0);
  const pauseMicros = (list: Collection[]) => ((sum(list, 'pause') * 1000) / REQUESTS).toFixed(1);
  return [
    `${name}: ${scavenges.length} scavenges, ${others.length} other collections (${others.map((c) => c.gc).join(',')})`,
    `  a request: allocated ${perRequestKb(scavenges, 'allocated')} KB, promoted ${perRequestKb(scavenges, 'promoted')} KB,` +
      ` survived in young ${perRequestKb(scavenges, 'new_space_survived')} KB; scavenge pauses ${pauseMicros(scavenges)} µs, others ${pauseMicros(others)} µs`,
    `  a scavenge: allocated ${perScavengeKb('allocated')} KB since the last, promoted ${perScavengeKb('promoted')} KB,` +
      ` survived in young ${perScavengeKb('new_space_survived')} KB`,
  ].join('\n');
}

async function traced(url: string, child: ChildProcess, name: string): Promise<string> {
  const record = recorder(child);
  await loadGraphQL(url, IN_FLIGHT, 2000);
  record.start();
  await loadGraphQL(url, IN_FLIGHT, REQUESTS);
  const lines = record.stop();
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
  return summary(name, lines);
}

async function main(): Promise<void> {
  const upstream = await spawnListening('trivialUpstream.ts', {});
  const minimal = await spawnListening('baselineSubgraph.ts', { NODE_ENV: 'production', UPSTREAM_URL: upstream.url }, ['--trace-gc-nvp']);
  const port = await freePort();
  const ours = spawn(process.execPath, ['--expose-gc', '--trace-gc-nvp', ...OURS_ARGS, ENTRY], {
    env: { ...process.env, ...subgraphEnvOver(upstream.url), RENDER_CACHE_TTL_SECONDS: '0', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await waitReady(`http://127.0.0.1:${port}/health/ready`);
  const report = [
    `${REQUESTS} requests at ${IN_FLIGHT} in flight after 2,000`,
    await traced(minimal.url, minimal.child, 'minimal'),
    await traced(`http://127.0.0.1:${port}/graphql`, ours, `this subgraph ${OURS_ARGS.join(' ')}`),
  ];
  await upstream.stop();
  process.stdout.write(`${report.join('\n')}\n`);
}

void main().then(() => process.exit(0));
