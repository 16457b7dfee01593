/**
 * What a frontend generates from the schema: graphql-codegen's client preset
 * over the supergraph's API schema and the operations in
 * test/frontend/operations, written into a directory of the test's own
 * (`schema.graphql`, `gql/`). Used by the frontend codegen test and by the
 * docs' checked snippets, which import `./gql/graphql` as a frontend would.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ANALYTICS_SUBGRAPH_NAME, composeSupergraph, loadAnalyticsTypeDefs, printApiSchema } from './federationSupergraph';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const OPERATIONS = path.join(REPO_ROOT, 'test', 'frontend', 'operations', '*.graphql');

/**
 * graphql-codegen's programmatic `generate`, run in a child Node process: the
 * client preset pulls in ES-module-only dependencies (auto-bind) that jest's
 * CommonJS module registry cannot load on Node 20, and `generate` swallows a
 * preset that fails to load (it resolves to no files instead of throwing).
 */
const CODEGEN_RUNNER = `
const { generate } = require('@graphql-codegen/cli');
generate(JSON.parse(process.argv[1]), true).then(
  (outputs) => process.stdout.write(JSON.stringify(outputs.map((o) => o.filename))),
  (error) => { process.stderr.write(String(error && error.message || error)); process.exitCode = 1; },
);
`;

async function runClientCodegen(config: object): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', CODEGEN_RUNNER, JSON.stringify(config)], {
    cwd: REPO_ROOT,
    timeout: 20000,
  });
  return JSON.parse(stdout) as string[];
}

/** Writes `schema.graphql` (the API schema) and the generated `gql/` into `workDir`; returns the generated files' absolute paths. */
export async function generateFrontendClient(workDir: string): Promise<string[]> {
  const supergraph = composeSupergraph([{ name: ANALYTICS_SUBGRAPH_NAME, typeDefs: loadAnalyticsTypeDefs() }]);
  writeFileSync(path.join(workDir, 'schema.graphql'), printApiSchema(supergraph));
  return runClientCodegen({
    // Presets resolve by package name from cwd; every path below is absolute.
    cwd: REPO_ROOT,
    silent: true,
    schema: path.join(workDir, 'schema.graphql'),
    documents: [OPERATIONS],
    generates: {
      [path.join(workDir, 'gql') + path.sep]: { preset: 'client', config: { scalars: { DateTime: 'string' } } },
    },
  });
}
