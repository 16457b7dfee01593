/**
 * `npm run schema:check`: fails when schema/*.graphql would break the
 * published schema (schema/published/analytics.graphql), naming each breaking
 * change; dangerous changes are printed. `npm run schema:publish` makes the
 * current schema the published one (commit it with the change).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { format, resolveConfig } from 'prettier';
import { loadTypeDefs, SCHEMA_DIR } from '../schema';
import { compareSchemas, describeChange, subgraphSdl } from './compare';

/** In a subdirectory: the server and codegen read only schema/*.graphql. */
const PUBLISHED_FILE = path.join(SCHEMA_DIR, 'published', 'analytics.graphql');

async function check(): Promise<number> {
  if (!existsSync(PUBLISHED_FILE)) {
    console.error(`schema:check: ${path.relative(process.cwd(), PUBLISHED_FILE)} is missing; run npm run schema:publish`);
    return 1;
  }
  const { breaking, dangerous, safe } = await compareSchemas(readFileSync(PUBLISHED_FILE, 'utf8'), subgraphSdl(loadTypeDefs()));
  for (const change of dangerous) console.log(`dangerous: ${describeChange(change)}`);
  for (const change of breaking) console.error(`BREAKING: ${describeChange(change)}`);
  if (breaking.length > 0) {
    console.error(
      `schema:check: ${breaking.length} breaking change(s) against the published schema. Names never change and fields are only added (docs/schema.md, "Schema evolution").`,
    );
    return 1;
  }
  console.log(
    `schema:check: no breaking changes (${dangerous.length} dangerous, ${safe.length} safe${safe.length + dangerous.length > 0 ? '; run npm run schema:publish once released' : ''}).`,
  );
  return 0;
}

/** Written as prettier formats it, so `npm run format:check` accepts the file as published. */
async function publish(): Promise<number> {
  mkdirSync(path.dirname(PUBLISHED_FILE), { recursive: true });
  const options = (await resolveConfig(PUBLISHED_FILE)) ?? {};
  writeFileSync(PUBLISHED_FILE, await format(subgraphSdl(loadTypeDefs()), { ...options, filepath: PUBLISHED_FILE }));
  console.log(`schema:publish: wrote ${path.relative(process.cwd(), PUBLISHED_FILE)}`);
  return 0;
}

async function main(command: string | undefined): Promise<number> {
  if (command === 'check') return check();
  if (command === 'publish') return publish();
  console.error('usage: tsx src/graphql/schemaEvolution/cli.ts check|publish');
  return 2;
}

main(process.argv[2]).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
