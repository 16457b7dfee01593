import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadGraphQL, startOverheadTargets } from './scenario';

/*
 * Where this subgraph's CPU time goes: a `node --cpu-prof` profile of it
 * under the overhead scenario's load (8 in flight), self time grouped by
 * where the code lives, in µs per request.
 */

const REQUESTS = 20_000;
const TOP_FUNCTIONS = 15;

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  samples: number[];
  timeDeltas: number[];
}

/** First match wins; order matters where paths nest (e.g. @apollo/server inside node_modules). */
const CATEGORIES: [string, (functionName: string, url: string) => boolean][] = [
  ['garbage collection', (name) => name === '(garbage collector)'],
  ['idle', (name) => name === '(idle)'],
  [
    'HTTP framework (express, body parsing, cors)',
    (_, url) =>
      /node_modules\/(express|router|body-parser|raw-body|@as-integrations|finalhandler|send|etag|cors|type-is|content-type|on-finished|iconv-lite|qs|accepts|negotiator|mime)/.test(
        url,
      ),
  ],
  ['upstream client (undici)', (_, url) => url.includes('node_modules/undici/')],
  ['Apollo (server, subgraph, utils)', (_, url) => url.includes('node_modules/@apollo/')],
  ['graphql-js', (_, url) => url.includes('node_modules/graphql/')],
  ['ours (dist/src)', (_, url) => url.includes('/dist/src/')],
  ['other libraries', (_, url) => url.includes('node_modules/')],
  ['node internals (node:* modules: http, net, streams, timers)', (_, url) => url.startsWith('node:')],
  ['native and V8 ((program), builtins)', () => true],
];

export async function profileSubgraph(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'subgraph-profile-'));
  try {
    const targets = await startOverheadTargets(['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    let throughput: number;
    try {
      throughput = (await loadGraphQL(targets.subgraph.url, 8, REQUESTS)).throughputPerSecond;
    } finally {
      // The profile is written when the subgraph exits (its SIGTERM handler ends in process.exit).
      await targets.stop();
    }
    const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
    if (file === undefined) throw new Error('the subgraph wrote no CPU profile');
    return split(JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile, REQUESTS, throughput);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function split(profile: CpuProfile, requests: number, throughput: number): string {
  const categoryOf = new Map<number, string>();
  for (const node of profile.nodes) {
    const [category] = CATEGORIES.find(([, matches]) => matches(node.callFrame.functionName, node.callFrame.url))!;
    categoryOf.set(node.id, category);
  }
  const micros = new Map<string, number>(CATEGORIES.map(([name]) => [name, 0]));
  profile.samples.forEach((id, index) => {
    const category = categoryOf.get(id)!;
    micros.set(category, micros.get(category)! + (profile.timeDeltas[index] ?? 0));
  });
  const byFunction = new Map<string, number>();
  const nodeById = new Map(profile.nodes.map((node) => [node.id, node]));
  profile.samples.forEach((id, index) => {
    const { functionName, url } = nodeById.get(id)!.callFrame;
    if (functionName === '(idle)') return;
    const name = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^.*\/dist\//, 'dist/')}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  const top = [...byFunction]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP_FUNCTIONS)
    .map(([name, value]) => `| \`${name.trim()}\` | ${(value / requests).toFixed(1)} µs |`);
  const busy = [...micros].filter(([name]) => name !== 'idle').reduce((sum, [, value]) => sum + value, 0);
  const rows = [...micros]
    .filter(([name]) => name !== 'idle')
    .map(([name, value]) => `| ${name} | ${(value / requests).toFixed(0)} µs | ${((100 * value) / busy).toFixed(1)}% |`);
  return [
    `CPU profile of this subgraph, ${requests.toLocaleString('en')} requests at 8 in flight (warm-up included), ${throughput.toFixed(0)}/s under the profiler:`,
    '',
    '| where | self time per request | share of busy time |',
    '|---|---|---|',
    ...rows,
    `| total busy | ${(busy / requests).toFixed(0)} µs | 100% |`,
    '',
    `Top ${TOP_FUNCTIONS} functions by self time:`,
    '',
    '| function | self time per request |',
    '|---|---|',
    ...top,
    '',
  ].join('\n');
}
