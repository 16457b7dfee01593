/**
 * `npm run supergraph` (scripts/supergraph.ts) as a user runs it: a process,
 * composing schema/ with another subgraph's SDL file given on the command
 * line, with no subgraph running and no secret. `--for apollo-gateway` writes
 * a supergraph that @apollo/gateway loads as its static `supergraphSdl` and
 * serves from, in front of the real subgraph and CMS.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import type { RunningEmulator } from '../../emulator';
import { startTestEmulator } from '../support/emulator';
import { startAnalyticsSubgraph, type RunningAnalyticsSubgraph } from '../support/federationAnalytics';
import { buildCmsData, CMS_TYPE_DEFS, startCmsSubgraph, type RunningCmsSubgraph } from '../support/federationCms';
import { postGraphQL } from '../support/federationGateway';

jest.setTimeout(60_000);

const ROOT = path.resolve(__dirname, '../..');
const DOMAIN = 'dailyglobe.example';
let directory: string;
let cmsFile: string;

beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'supergraph-'));
  cmsFile = path.join(directory, 'cms.graphql');
  writeFileSync(cmsFile, CMS_TYPE_DEFS);
});

afterAll(() => rmSync(directory, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run supergraph -- …args`, as package.json runs it (tsx), in a clean environment: no secret, no CALLER_AUTH. */
function supergraph(...args: string[]): Promise<Run> {
  const tsx = path.join(ROOT, 'node_modules/.bin/tsx');
  return new Promise((resolve) => {
    execFile(tsx, ['scripts/supergraph.ts', ...args], { cwd: ROOT, env: { PATH: process.env.PATH } }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
    });
  });
}

test('package.json runs it as `npm run supergraph`', () => {
  const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  expect(scripts.supergraph).toBe('tsx scripts/supergraph.ts');
});

test('composes schema/ with another SDL file, offline: the routers get the scopes, both routing URLs', async () => {
  const run = await supergraph(
    '--url',
    'analytics=http://analytics:4001/graphql',
    'cms=' + cmsFile,
    '--url',
    'cms=http://cms:4002/graphql',
  );
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/@link\(url: "https:\/\/specs\.apollo\.dev\/requiresScopes\/v0\.1", for: SECURITY\)/);
  expect(run.stdout).toMatch(/ANALYTICS @join__graph\(name: "analytics", url: "http:\/\/analytics:4001\/graphql"\)/);
  expect(run.stdout).toMatch(/CMS @join__graph\(name: "cms", url: "http:\/\/cms:4002\/graphql"\)/);
  expect(run.stdout).toMatch(/headline: String! @join__field\(graph: CMS\)/);
});

test('says what is wrong: a subgraph without a routing URL, an unreadable file, a composition error', async () => {
  const noUrl = await supergraph('cms=' + cmsFile);
  expect(noUrl.code).toBe(2);
  expect(noUrl.stderr).toContain('no routing URL for subgraph "cms": add --url cms=http://');

  const missing = await supergraph('cms=' + path.join(directory, 'absent.graphql'), '--url', 'cms=http://cms/graphql');
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('cannot read the SDL of "cms"');

  const clashing = path.join(directory, 'clash.graphql');
  writeFileSync(clashing, CMS_TYPE_DEFS.replace(/url: String!(\s+headline)/, 'url: Int!$1'));
  const clash = await supergraph('cms=' + clashing, '--url', 'cms=http://cms/graphql');
  expect(clash.code).toBe(1);
  expect(clash.stderr).toMatch(/composition failed:\n- Type of field "Article\.url" is incompatible/);

  const badTarget = await supergraph('--for', 'apollo-gateways');
  expect(badTarget.code).toBe(2);
  expect(badTarget.stderr).toContain('--for must be one of apollo-router, hive-gateway, apollo-gateway');
});

describe('--for apollo-gateway', () => {
  let emulator: RunningEmulator;
  let analytics: RunningAnalyticsSubgraph;
  let cms: RunningCmsSubgraph;
  let server: ApolloServer | undefined;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    analytics = await startAnalyticsSubgraph(emulator.url);
    cms = await startCmsSubgraph(
      buildCmsData(emulator.store.articles, {
        domain: DOMAIN,
        distinctFrontPageArticles: 3,
        frontPageSize: 3,
        clientIds: emulator.store.clients.values.slice(0, 1),
        userCount: 1,
      }),
    );
  });

  afterAll(async () => {
    await server?.stop();
    await cms?.close();
    await analytics?.close();
    await emulator?.close();
  });

  test('writes a supergraph without the authorization features, which @apollo/gateway loads and serves', async () => {
    const out = path.join(directory, 'supergraph.graphql');
    const run = await supergraph(
      '--for',
      'apollo-gateway',
      '--out',
      out,
      '--url',
      `analytics=${analytics.url}`,
      `cms=${cmsFile}`,
      '--url',
      `cms=${cms.url}`,
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`wrote ${out} (analytics, cms; for apollo-gateway)`);
    const supergraphSdl = readFileSync(out, 'utf8');
    expect(supergraphSdl).not.toMatch(/requiresScopes|authenticated|@policy/);
    // What the weights and cache hints need still travels.
    expect(supergraphSdl).toMatch(/@cost\(weight: 600\)/);

    server = new ApolloServer({ gateway: new ApolloGateway({ supergraphSdl }) });
    const { url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } });
    const answer = await postGraphQL<{ frontPage: { url: string; headline: string; analytics: { pageViews: number } | null }[] }>(
      url,
      `{ frontPage { url headline analytics { pageViews } } }`,
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.frontPage).toHaveLength(3);
    for (const article of answer.data?.frontPage ?? []) {
      expect(article.headline).toEqual(cms.data.articles.find((candidate) => candidate.url === article.url)?.headline);
      expect(article.analytics?.pageViews).toEqual(expect.any(Number));
    }
  });
});
