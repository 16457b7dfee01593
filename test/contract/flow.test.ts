/**
 * The one direction data flows (src/README.md): web → graphql → operation →
 * reporting → upstream. A room imports from the rooms below it and from the
 * rooms beside the flow (auth, config, observability, redaction), which never
 * import a room of the flow. Under them all is the kernel (the shared
 * vocabulary: wire types, instants, failures and their codes, the clock): any
 * room may import it, and it imports no room of the flow. The Redis room is an
 * adapter beside the flow: it implements the contracts of the rooms it serves,
 * so it may import any room but the entry points, and only the entry points
 * import it (the composition root chooses memory or Redis and hands the rooms
 * their parts). The doctor, the composition root (app/) and src/index.ts are
 * entry points: they may import any room, and no room imports them. Inside reporting/ and graphql/, the
 * floors have the same rule: a file imports from its own floor and the floors
 * below it. Every file of src/ belongs to a room (a loose file directly under
 * src/ too), and every folder of a room with floors to a floor. Type-only
 * imports count: a type that a lower room needs belongs to that room (or to
 * the kernel, or to contract/).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(__dirname, '../..');

/** The rooms of the flow, top first. */
const FLOW: readonly string[] = ['web', 'graphql', 'operation', 'reporting', 'upstream'];
const BESIDE: readonly string[] = ['auth', 'config', 'observability', 'redaction'];
/** The adapter room: the Redis implementations of the other rooms' contracts, and the connection they share. */
const REDIS = 'redis';
const KERNEL = 'kernel';
const ENTRY_POINTS: readonly string[] = ['doctor', 'app', 'index.ts'];

/** The floors of the rooms that have them, top first; `.` is the room's loose files. */
const FLOORS: Readonly<Record<string, readonly string[]>> = {
  reporting: ['.', 'reads', 'live', 'analytics', 'tables', 'dashboard', 'budget'],
  graphql: [
    'schemaEvolution',
    '.',
    'resolvers',
    'subscriptions',
    'analytics',
    'access',
    'responseCache',
    'errors',
    'limits',
    'scalars',
    '__generated__',
    'parents',
  ],
};

interface Import {
  from: string;
  to: string;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(folder, name));
}

/** The file a relative specifier names: `x.ts`, or `x/index.ts` for a folder. */
function resolveModule(file: string, specifier: string): string {
  const base = resolve(ROOT, dirname(file), specifier.replace(/\.js$/, ''));
  const candidates = [`${base}.ts`, join(base, 'index.ts'), base];
  const found = candidates.find((candidate) => existsSync(candidate) && candidate.endsWith('.ts'));
  if (found === undefined) throw new Error(`${file} imports '${specifier}', which names no .ts file`);
  return relative(ROOT, found);
}

/** Every relative import of src/, static, dynamic, re-exports and `import type` alike (TypeScript's own scanner). */
function importGraph(): Import[] {
  return sourceFiles('src').flatMap((file) =>
    ts
      .preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true)
      .importedFiles.map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => ({ from: file, to: resolveModule(file, specifier) })),
  );
}

/** The room of a file of src/: its first folder, or the file's own name for a loose file (`index.ts`); undefined outside src/. */
function roomOf(file: string): string | undefined {
  const parts = file.split('/');
  if (parts[0] !== 'src') return undefined;
  return parts[1];
}

/** The floor of a file inside its room: its folder under the room, or `.` for a loose file of the room. */
function floorOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 3 ? (parts[2] ?? '.') : '.';
}

const isFlow = (room: string): boolean => FLOW.includes(room);
const isBeside = (room: string): boolean => BESIDE.includes(room);
const isEntryPoint = (room: string): boolean => ENTRY_POINTS.includes(room);
const isRoom = (room: string): boolean => isFlow(room) || isBeside(room) || room === REDIS || room === KERNEL || isEntryPoint(room);

/** Why an import between rooms breaks the flow, or undefined when it keeps it. */
function violation(from: string, to: string): string | undefined {
  if (!isRoom(from)) return `${from} is no room`;
  if (!isRoom(to)) return `${to} is no room`;
  if (from === to || isEntryPoint(from)) return undefined;
  if (isEntryPoint(to)) return 'imports an entry point';
  if (to === REDIS) return 'imports the Redis room';
  if (from === KERNEL && to !== KERNEL && !isBeside(to)) return 'goes up from the kernel';
  if (isFlow(from) && isFlow(to) && FLOW.indexOf(to) < FLOW.indexOf(from)) return 'goes up the flow';
  if (isBeside(from) && isFlow(to)) return 'goes from beside the flow into it';
  return undefined;
}

/** Why an import inside a room with floors goes up a floor (or leaves a floor unnamed), or undefined when it keeps them. */
function floorViolation(room: string, from: string, to: string): string | undefined {
  const floors = FLOORS[room];
  if (floors === undefined || from === to) return undefined;
  if (!floors.includes(from)) return `${room}/${from} is on no floor`;
  if (!floors.includes(to)) return `${room}/${to} is on no floor`;
  return floors.indexOf(to) < floors.indexOf(from) ? `goes up a floor of ${room}/` : undefined;
}

function violations(imports: readonly Import[]): string[] {
  return imports.flatMap(({ from, to }) => {
    const fromRoom = roomOf(from);
    const toRoom = roomOf(to);
    if (fromRoom === undefined || toRoom === undefined) return [];
    const why = fromRoom === toRoom ? floorViolation(fromRoom, floorOf(from), floorOf(to)) : violation(fromRoom, toRoom);
    return why === undefined ? [] : [`${from} → ${to} (${why})`];
  });
}

/** Rooms that reach each other through imports (a circle between folders), each group sorted; none when the flow is kept. */
function roomCircles(imports: readonly Import[]): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const { from, to } of imports) {
    const a = roomOf(from);
    const b = roomOf(to);
    if (a === undefined || b === undefined || a === b) continue;
    edges.set(a, (edges.get(a) ?? new Set()).add(b));
  }
  const reachable = (start: string): Set<string> => {
    const seen = new Set<string>();
    const stack = [start];
    for (let room = stack.pop(); room !== undefined; room = stack.pop()) {
      for (const next of edges.get(room) ?? []) {
        if (seen.has(next)) continue;
        seen.add(next);
        stack.push(next);
      }
    }
    return seen;
  };
  const reach = new Map([...edges.keys()].map((room) => [room, reachable(room)]));
  const groups = new Map<string, string[]>();
  for (const [room, reached] of reach) {
    if (!reached.has(room)) continue;
    const group = [...reached].filter((other) => reach.get(other)?.has(room)).sort();
    groups.set(group.join(), group);
  }
  return [...groups.values()];
}

describe('the one direction data flows through src/', () => {
  const imports = importGraph();

  it('reads the import graph, type imports included', () => {
    // A scanner that missed `import type` or multi-line imports would find nothing to refuse.
    expect(imports).toContainEqual({ from: 'src/index.ts', to: 'src/config/index.ts' });
    expect(imports.filter(({ from }) => from === 'src/graphql/__generated__/resolvers-types.ts')).toContainEqual({
      from: 'src/graphql/__generated__/resolvers-types.ts',
      to: 'src/operation/context.ts',
    });
  });

  it('names every folder and every loose file of src/ as a room of the flow, a room beside it, the Redis room, the kernel or an entry point', () => {
    const rooms = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() || entry.name.endsWith('.ts'))
      .map((entry) => entry.name);
    expect(rooms).toContain('index.ts');
    expect(rooms.filter((room) => !isRoom(room))).toEqual([]);
  });

  it('names every folder of a room with floors as one of its floors', () => {
    const unnamed = Object.entries(FLOORS).flatMap(([room, floors]) =>
      readdirSync(join(ROOT, 'src', room), { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && !floors.includes(entry.name))
        .map((entry) => `${room}/${entry.name}`),
    );
    expect(unnamed).toEqual([]);
  });

  it('refuses an import up a floor inside reporting/ and graphql/, and a file on no floor', () => {
    expect(floorViolation('reporting', 'budget', 'tables')).toBe('goes up a floor of reporting/');
    expect(floorViolation('reporting', 'tables', '.')).toBe('goes up a floor of reporting/');
    expect(floorViolation('graphql', 'parents', 'resolvers')).toBe('goes up a floor of graphql/');
    expect(floorViolation('reporting', 'attic', 'budget')).toBe('reporting/attic is on no floor');
    expect(floorViolation('reporting', 'tables', 'budget')).toBeUndefined();
    expect(floorViolation('reporting', '.', 'dashboard')).toBeUndefined();
    expect(floorViolation('upstream', 'stores', 'stages')).toBeUndefined();
    expect(violations([{ from: 'src/reporting/budget/budgetQueue.ts', to: 'src/reporting/tables/tableSpec.ts' }])).toEqual([
      'src/reporting/budget/budgetQueue.ts → src/reporting/tables/tableSpec.ts (goes up a floor of reporting/)',
    ]);
  });

  it('refuses an import up the flow, from beside the flow into it, or of an entry point', () => {
    expect(violation('reporting', 'graphql')).toBe('goes up the flow');
    expect(violation('upstream', 'reporting')).toBe('goes up the flow');
    expect(violation('auth', 'upstream')).toBe('goes from beside the flow into it');
    expect(violation('web', 'doctor')).toBe('imports an entry point');
    expect(violation('web', 'app')).toBe('imports an entry point');
    expect(violation('kernel', 'upstream')).toBe('goes up from the kernel');
    expect(violation('compose.ts', 'web')).toBe('compose.ts is no room');
    expect(violation('graphql', 'kernel')).toBeUndefined();
    expect(violation('auth', 'kernel')).toBeUndefined();
    expect(violation('app', 'web')).toBeUndefined();
    expect(violation('graphql', 'reporting')).toBeUndefined();
    expect(violation('reporting', 'config')).toBeUndefined();
    expect(violation('doctor', 'web')).toBeUndefined();
    expect(violation('index.ts', 'graphql')).toBeUndefined();
  });

  it('refuses an import of the Redis room from any room but an entry point, and lets it import the contracts it implements', () => {
    expect(violation('upstream', 'redis')).toBe('imports the Redis room');
    expect(violation('reporting', 'redis')).toBe('imports the Redis room');
    expect(violation('web', 'redis')).toBe('imports the Redis room');
    expect(violation('config', 'redis')).toBe('imports the Redis room');
    expect(violation('kernel', 'redis')).toBe('imports the Redis room');
    expect(violation('redis', 'app')).toBe('imports an entry point');
    expect(violation('redis', 'upstream')).toBeUndefined();
    expect(violation('redis', 'reporting')).toBeUndefined();
    expect(violation('redis', 'auth')).toBeUndefined();
    expect(violation('redis', 'config')).toBeUndefined();
    expect(violation('redis', 'kernel')).toBeUndefined();
    expect(violation('app', 'redis')).toBeUndefined();
    expect(violation('doctor', 'redis')).toBeUndefined();
    expect(violation('index.ts', 'redis')).toBeUndefined();
    expect(violations([{ from: 'src/upstream/upstreams.ts', to: 'src/redis/connection/sharedRedis.ts' }])).toEqual([
      'src/upstream/upstreams.ts → src/redis/connection/sharedRedis.ts (imports the Redis room)',
    ]);
  });

  it('names each breaking import with its reason, and each circle by its rooms', () => {
    const graph: Import[] = [
      { from: 'src/graphql/a.ts', to: 'src/reporting/b.ts' },
      { from: 'src/reporting/b.ts', to: 'src/graphql/c.ts' },
      { from: 'src/auth/d.ts', to: 'src/config/e.ts' },
      { from: 'src/index.ts', to: 'src/web/f.ts' },
    ];
    expect(violations(graph)).toEqual(['src/reporting/b.ts → src/graphql/c.ts (goes up the flow)']);
    expect(roomCircles(graph)).toEqual([['graphql', 'reporting']]);
    expect(roomCircles(graph.slice(2))).toEqual([]);
  });

  it('has no import that goes up the flow, from beside it into it, up from the kernel, of the Redis room or up a floor', () => {
    expect(violations(imports)).toEqual([]);
  });

  it('has no circle between rooms', () => {
    expect(roomCircles(imports)).toEqual([]);
  });
});
