/**
 * Builds the offline explorer (LANDING_PAGE=offline) into dist/explorer/:
 * GraphiQL 5, React 19 and Monaco bundled with esbuild into one script, one
 * stylesheet (its fonts inlined) and Monaco's three workers. Run by
 * `npm run build` (so by `npm start`) and by `npm test`; about a few seconds.
 * Usage: node scripts/buildExplorer.mjs [outdir]
 */
import { mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const outdir = path.resolve(root, process.argv[2] ?? 'dist/explorer');

/** Monaco's workers by the label it asks for (see getWorker in the app). */
const WORKERS = {
  editor: require.resolve('monaco-editor/esm/vs/editor/editor.worker.js'),
  json: require.resolve('monaco-editor/esm/vs/language/json/json.worker.js'),
  graphql: require.resolve('monaco-graphql/esm/graphql.worker.js'),
};

const common = {
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['chrome110', 'firefox110', 'safari16'],
  define: { 'process.env.NODE_ENV': '"production"' },
  // Fonts and icons go into the stylesheet: no request for them, from anywhere.
  loader: { '.ttf': 'dataurl', '.woff': 'dataurl', '.woff2': 'dataurl', '.svg': 'dataurl' },
  legalComments: 'none',
  logLevel: 'warning',
};

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
await Promise.all([
  build({
    ...common,
    entryPoints: { explorer: path.join(root, 'src/web/explorer/app/main.jsx') },
    outdir,
    jsx: 'automatic',
  }),
  ...Object.entries(WORKERS).map(([name, entry]) => build({ ...common, entryPoints: { [`${name}.worker`]: entry }, outdir })),
]);
process.stdout.write(`offline explorer built in ${path.relative(root, outdir) || '.'}\n`);
