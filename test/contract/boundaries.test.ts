/**
 * The subgraph and the emulator are two programs: the emulator imports
 * nothing of src/, the contract imports neither, and src/ imports emulator/
 * only where it starts the embedded emulator.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';

const ROOT = resolve(__dirname, '../..');

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(folder, name));
}

/** Every relative module a file imports or re-exports, as a path from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']*)'/g)].map((match) => match[1]);
  return specifiers.map((specifier) => relative(ROOT, resolve(ROOT, dirname(file), specifier)));
}

function importsInto(folders: readonly string[], target: string): string[] {
  return folders.flatMap((folder) =>
    sourceFiles(folder).flatMap((file) =>
      importsOf(file)
        .filter((path) => path === target || path.startsWith(`${target}/`))
        .map((path) => `${file} → ${path}`),
    ),
  );
}

describe('the boundaries between src/, emulator/ and contract/', () => {
  it('emulator/ imports nothing from src/', () => {
    expect(importsInto(['emulator'], 'src')).toEqual([]);
  });

  it('contract/ imports nothing from src/ or emulator/', () => {
    expect([...importsInto(['contract'], 'src'), ...importsInto(['contract'], 'emulator')]).toEqual([]);
  });

  it('src/ imports emulator/ only where it starts the embedded emulator', () => {
    const files = importsInto(['src'], 'emulator').map((edge) => edge.split(' → ')[0]);
    expect([...new Set(files)].sort()).toEqual(['src/doctor/doctorTarget.ts', 'src/index.ts']);
  });
});
