import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, type DocumentNode } from 'graphql';

/**
 * schema/ at the repository (or image) root, found from the source root's
 * location, never from the working directory: `src/` under tsx and jest,
 * `dist/src/` after the build.
 */
export function schemaDirFor(sourceRoot: string): string {
  const parent = path.dirname(sourceRoot);
  const repoRoot = path.basename(parent) === 'dist' ? path.dirname(parent) : parent;
  return path.join(repoRoot, 'schema');
}

// This file sits in src/graphql/: its parent is the source root.
export const SCHEMA_DIR = schemaDirFor(path.dirname(__dirname));

/** schema/*.graphql in name order, as one document: the subgraph's SDL, the single source of truth. */
export function loadTypeDefs(directory: string = SCHEMA_DIR): DocumentNode {
  const files = readdirSync(directory)
    .filter((name) => name.endsWith('.graphql'))
    .sort();
  if (files.length === 0) throw new Error(`no .graphql files in ${directory}`);
  return parse(files.map((name) => readFileSync(path.join(directory, name), 'utf8')).join('\n'));
}
