import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSubgraph } from '../processes';
import { spawnListening, subgraphEnvOver } from './processes';
import { loadGraphQL } from './scenario';

/*
 * The raw path's CPU, this subgraph against the minimal one (issue 38, item 1):
 *   npm run bench -- profile-side-by-side      # RAW_PROFILE_IN_FLIGHT (50), RAW_PROFILE_REQUESTS (15,000)
 *                                              # RAW_PROFILE_ENTRY: another build's dist/src/index.js (e.g. the base's)
 * Both run under `node --cpu-prof` over the overhead scenario's trivial upstream, one after the other, each
 * after 3,000 requests of warm-up; only the samples inside each one's measured load count (the processes
 * share the system's monotonic clock), grouped by package (ours: by folder of dist/src), in µs a request.
 * The profiler inflates every figure alike: compare the columns, not the absolute values.
 */

const IN_FLIGHT = Number(process.env.RAW_PROFILE_IN_FLIGHT ?? 50);
const REQUESTS = Number(process.env.RAW_PROFILE_REQUESTS ?? 15_000);
const ENTRY = process.env.RAW_PROFILE_ENTRY || undefined;
const TOP_FRAMES = 20;
const nowMicros = () => Number(process.hrtime.bigint() / 1000n);

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}

function groupOf(functionName: string, url: string): string {
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(program)') return '(program)';
  const library = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (library) return library[1];
  if (url.includes('/dist/src/')) return `ours: ${url.replace(/^.*\/dist\/src\//, '').split('/')[0]}/`;
  if (url.includes('/bench/')) return 'the minimal subgraph’s own file';
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  return `native: ${functionName || '(anonymous)'}`;
}

/** A function, named by where it lives: its package's path (or ours, under dist/src/) and line. */
function frameOf(functionName: string, url: string, lineNumber: number): string {
  const group = groupOf(functionName, url);
  if (group === 'idle' || url === '') return group;
  return `${functionName || '(anonymous)'} ${url.replace(/^.*\/(dist\/src|node_modules)\//, '')}:${lineNumber + 1}`;
}

/** µs a request by `keyOf` (a group, a function), over the profile's samples taken between `from` and `to` (µs of the monotonic clock). */
function split(profile: CpuProfile, from: number, to: number, keyOf: typeof frameOf = groupOf): Map<string, number> {
  const groups = new Map(
    profile.nodes.map((node) => [node.id, keyOf(node.callFrame.functionName, node.callFrame.url, node.callFrame.lineNumber)]),
  );
  const micros = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    const group = groups.get(id)!;
    if (at < from || at > to || group === 'idle') return;
    micros.set(group, (micros.get(group) ?? 0) + delta / REQUESTS);
  });
  return micros;
}

async function main(): Promise<void> {
  const minimalDir = mkdtempSync(join(tmpdir(), 'raw-minimal-'));
  const oursDir = mkdtempSync(join(tmpdir(), 'raw-ours-'));
  const upstream = await spawnListening('trivialUpstream.ts', {});
  const minimal = await spawnListening('baselineSubgraph.ts', { NODE_ENV: 'production', UPSTREAM_URL: upstream.url }, [
    '--cpu-prof',
    `--cpu-prof-dir=${minimalDir}`,
  ]);
  const ours = await spawnSubgraph(
    { ...subgraphEnvOver(upstream.url), RENDER_CACHE_TTL_SECONDS: '0' },
    ['--cpu-prof', `--cpu-prof-dir=${oursDir}`],
    ENTRY,
  );
  const windows: [number, number][] = [];
  for (const url of [minimal.url, ours.url]) {
    await loadGraphQL(url, IN_FLIGHT, 3000);
    const from = nowMicros();
    await loadGraphQL(url, IN_FLIGHT, REQUESTS);
    windows.push([from, nowMicros()]);
  }
  await ours.stop();
  await minimal.stop();
  await upstream.stop();
  const profileIn = (dir: string) =>
    JSON.parse(
      readFileSync(
        join(
          dir,
          readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))!,
        ),
        'utf8',
      ),
    ) as CpuProfile;
  const [minimalProfile, oursProfile] = [profileIn(minimalDir), profileIn(oursDir)];
  const [minimalMicros, oursMicros] = [split(minimalProfile, ...windows[0]), split(oursProfile, ...windows[1])];
  const oursFrames = [...split(oursProfile, ...windows[1], frameOf)].sort((a, b) => b[1] - a[1]).slice(0, TOP_FRAMES);
  const total = (micros: Map<string, number>) => [...micros.values()].reduce((sum, value) => sum + value, 0);
  const rows = [...new Set([...minimalMicros.keys(), ...oursMicros.keys()])]
    .map((group) => [group, minimalMicros.get(group) ?? 0, oursMicros.get(group) ?? 0] as const)
    .sort((a, b) => Math.max(b[1], b[2]) - Math.max(a[1], a[2]))
    .slice(0, 25);
  process.stdout.write(
    [
      `Busy time a request at ${IN_FLIGHT} in flight, ${REQUESTS} requests each: minimal ${total(minimalMicros).toFixed(0)} µs, this subgraph ${total(oursMicros).toFixed(0)} µs`,
      '',
      '| where (self time) | minimal, µs | this subgraph, µs | difference |',
      '|---|---:|---:|---:|',
      ...rows.map(
        ([group, minimalValue, oursValue]) =>
          `| ${group} | ${minimalValue.toFixed(1)} | ${oursValue.toFixed(1)} | ${(oursValue - minimalValue).toFixed(1)} |`,
      ),
      '',
      `This subgraph's top ${TOP_FRAMES} functions (self time):`,
      '',
      '| function | µs a request |',
      '|---|---:|',
      ...oursFrames.map(([frame, micros]) => `| ${frame} | ${micros.toFixed(1)} |`),
      '',
    ].join('\n'),
  );
}

void main().then(() => process.exit(0));
