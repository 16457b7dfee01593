import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isRead, type RouteHandler } from '../respond';
import { CONTENT_SECURITY_POLICY, EXPLORER_ASSETS_PATH } from './page';

/** What scripts/buildExplorer.mjs writes, by file name. */
const ASSET_TYPES: Readonly<Record<string, string>> = {
  'explorer.js': 'text/javascript; charset=utf-8',
  'explorer.css': 'text/css; charset=utf-8',
  'editor.worker.js': 'text/javascript; charset=utf-8',
  'json.worker.js': 'text/javascript; charset=utf-8',
  'graphql.worker.js': 'text/javascript; charset=utf-8',
};

/** Unhashed names: a short max-age, so an upgraded bundle shows within minutes. */
const ASSET_CACHE_CONTROL = 'public, max-age=300';

/**
 * dist/explorer/ at the repository (or image) root, found from the source
 * root like schema/ is: `src/` under tsx and jest, `dist/src/` after the build.
 */
export function explorerDirFor(sourceRoot: string): string {
  const parent = path.dirname(sourceRoot);
  const repoRoot = path.basename(parent) === 'dist' ? path.dirname(parent) : parent;
  return path.join(repoRoot, 'dist', 'explorer');
}

// This file sits in src/web/explorer/: two levels under the source root.
const EXPLORER_DIR = explorerDirFor(path.resolve(__dirname, '..', '..'));

/**
 * The built explorer's files as routes, read once at start-up. A missing
 * build is a start-up error that says how to make one, not a blank page.
 */
export function explorerAssetRoutes(directory: string = EXPLORER_DIR): Record<string, RouteHandler> {
  const routes: Record<string, RouteHandler> = {};
  for (const [name, contentType] of Object.entries(ASSET_TYPES)) {
    const file = path.join(directory, name);
    if (!existsSync(file)) {
      throw new Error(`LANDING_PAGE=offline needs the bundled explorer, but ${file} is missing: run npm run build`);
    }
    routes[`${EXPLORER_ASSETS_PATH}/${name}`] = assetHandler(readFileSync(file), contentType);
  }
  return routes;
}

function assetHandler(body: Buffer, contentType: string): RouteHandler {
  return (request, response) => {
    if (!isRead(request, response)) return;
    response.writeHead(200, {
      'content-type': contentType,
      'content-length': body.length,
      'cache-control': ASSET_CACHE_CONTROL,
      'x-content-type-options': 'nosniff',
      // Workers take the policy of their own script's response.
      'content-security-policy': CONTENT_SECURITY_POLICY,
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  };
}
