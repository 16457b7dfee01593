/**
 * The caller's read path is the only way graphql/ reads reporting numbers
 * (src/reporting/reads/callerReads.ts): no file under src/graphql/ applies a
 * caller's sites itself or reads the analytics tables around it, so a new
 * resolver cannot forget the sites or scopes of the caller. Read from the
 * source, as test/contract/flow.test.ts reads the import graph.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const GRAPHQL_ROOT = join(__dirname, '../../src/graphql');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === '__generated__' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const files = sourceFiles(GRAPHQL_ROOT).map((path) => ({ path: relative(GRAPHQL_ROOT, path), text: readFileSync(path, 'utf8') }));

it('finds the graphql/ sources', () => {
  expect(files.map((file) => file.path)).toEqual(expect.arrayContaining(['resolvers/query.ts', 'subscriptions/sources.ts']));
});

it('applies no sites in graphql/: nothing there imports the sites rules', () => {
  expect(files.filter((file) => /from '[^']*reporting\/(sites|reads\/callerSites)[^']*'/.test(file.text)).map((file) => file.path)).toEqual(
    [],
  );
});

it('reads no analytics table around the read path: no resolver or source touches context.analyticsTables or the tables themselves', () => {
  const around = files.filter(
    (file) => /\.analyticsTables\b/.test(file.text) || /import \{[^}]*\bAnalyticsTables\b[^}]*\} from/.test(file.text),
  );
  expect(around.map((file) => file.path)).toEqual([]);
});
