/**
 * The one direction data flows (src/README.md): web → graphql → operation →
 * reporting → upstream. A room imports from the rooms below it and from the
 * rooms beside the flow (auth, config, observability, redaction), which never
 * import a room of the flow. The doctor and src/index.ts are entry points:
 * they may import any room, and no room imports them. Type-only imports count:
 * a type that a lower room needs belongs to that room (or to contract/).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(__dirname, '../..');

/** The rooms of the flow, top first. */
const FLOW: readonly string[] = ['web', 'graphql', 'operation', 'reporting', 'upstream'];
const BESIDE: readonly string[] = ['auth', 'config', 'observability', 'redaction'];
const ENTRY_POINTS: readonly string[] = ['doctor', 'index.ts'];

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

/** The room of a file of src/: its first folder, or `index.ts` for the process itself; undefined outside src/. */
function roomOf(file: string): string | undefined {
  const parts = file.split('/');
  if (parts[0] !== 'src') return undefined;
  return parts[1];
}

const isFlow = (room: string): boolean => FLOW.includes(room);
const isBeside = (room: string): boolean => BESIDE.includes(room);
const isEntryPoint = (room: string): boolean => ENTRY_POINTS.includes(room);

/** Why an import breaks the flow, or undefined when it keeps it. */
function violation(from: string, to: string): string | undefined {
  if (from === to || isEntryPoint(from)) return undefined;
  if (isEntryPoint(to)) return 'imports an entry point';
  if (isFlow(from) && isFlow(to) && FLOW.indexOf(to) < FLOW.indexOf(from)) return 'goes up the flow';
  if (isBeside(from) && isFlow(to)) return 'goes from beside the flow into it';
  return undefined;
}

function violations(imports: readonly Import[]): string[] {
  return imports.flatMap(({ from, to }) => {
    const fromRoom = roomOf(from);
    const toRoom = roomOf(to);
    if (fromRoom === undefined || toRoom === undefined) return [];
    const why = violation(fromRoom, toRoom);
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

  it('names every folder of src/ as a room of the flow, a room beside it or an entry point', () => {
    const rooms = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(rooms.filter((room) => !isFlow(room) && !isBeside(room) && !isEntryPoint(room))).toEqual([]);
  });

  it('refuses an import up the flow, from beside the flow into it, or of an entry point', () => {
    expect(violation('reporting', 'graphql')).toBe('goes up the flow');
    expect(violation('upstream', 'reporting')).toBe('goes up the flow');
    expect(violation('auth', 'upstream')).toBe('goes from beside the flow into it');
    expect(violation('web', 'doctor')).toBe('imports an entry point');
    expect(violation('graphql', 'reporting')).toBeUndefined();
    expect(violation('reporting', 'config')).toBeUndefined();
    expect(violation('doctor', 'web')).toBeUndefined();
    expect(violation('index.ts', 'graphql')).toBeUndefined();
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

  it('has no import that goes up the flow or from beside it into it', () => {
    expect(violations(imports)).toEqual([]);
  });

  it('has no circle between rooms', () => {
    expect(roomCircles(imports)).toEqual([]);
  });
});
