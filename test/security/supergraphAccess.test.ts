/**
 * The access declarations reach the supergraph, and a real Hive Gateway
 * (its runtime in-process) signs its subgraph requests as the subgraph
 * verifies them: the composed supergraph carries @requiresScopes; a gateway
 * with `hmacSignature` is answered, one without is refused by the subgraph
 * (401), and the gateway's own auth refuses a field at the edge from the same
 * directives, before the subgraph is called.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema, isObjectType, parse, valueFromASTUntyped } from 'graphql';
import type { RunningEmulator } from '../../emulator';
import { call, startTestEmulator } from '../support/emulator';
import { startAnalyticsSubgraph, type RunningAnalyticsSubgraph } from '../support/federationAnalytics';
import { buildCmsData, CMS_SUBGRAPH_NAME, CMS_TYPE_DEFS, startCmsSubgraph, type RunningCmsSubgraph } from '../support/federationCms';
import { postGraphQL } from '../support/federationGateway';
import { ANALYTICS_SUBGRAPH_NAME, composeSupergraph, loadAnalyticsTypeDefs } from '../support/federationSupergraph';
import { startHiveGateway, type RunningHiveGateway } from '../support/hiveGateway';
import { HMAC_SECRET } from './support';

const DOMAIN = 'dailyglobe.example';
const TRAFFIC = `query Traffic($days: Int!) { dashboard(query: { dates: { last: { number: $days, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL] }) { total } }`;

let emulator: RunningEmulator;
let analytics: RunningAnalyticsSubgraph;
let cms: RunningCmsSubgraph;
let supergraphSdl: string;
const gateways: RunningHiveGateway[] = [];

beforeAll(async () => {
  emulator = await startTestEmulator();
  analytics = await startAnalyticsSubgraph(emulator.url, { CALLER_AUTH: 'hmac', ROUTER_HMAC_SECRET: HMAC_SECRET });
  cms = await startCmsSubgraph(
    buildCmsData(emulator.store.articles, {
      domain: DOMAIN,
      distinctFrontPageArticles: 2,
      frontPageSize: 2,
      clientIds: emulator.store.clients.values.slice(0, 1),
      userCount: 1,
    }),
  );
  ({ supergraphSdl } = composeSupergraph([
    { name: ANALYTICS_SUBGRAPH_NAME, url: analytics.url, typeDefs: loadAnalyticsTypeDefs() },
    { name: CMS_SUBGRAPH_NAME, url: cms.url, typeDefs: parse(CMS_TYPE_DEFS) },
  ]));
});

afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
  await cms?.close();
  await analytics?.close();
  await emulator?.close();
});

async function dashboardQueriesSent(): Promise<number> {
  return (await call<{ dashboard: { count: number } }>(emulator, '/__emulator/stats')).body.dashboard.count;
}

async function gateway(options: Parameters<typeof startHiveGateway>[1]): Promise<RunningHiveGateway> {
  const started = await startHiveGateway(supergraphSdl, options);
  gateways.push(started);
  return started;
}

test('the composed supergraph carries the scopes of each field', () => {
  const supergraph = buildSchema(supergraphSdl);
  const scopesOf = (typeName: string, fieldName: string) => {
    const type = supergraph.getType(typeName);
    if (!isObjectType(type)) throw new Error(`${typeName} is not an object type`);
    const directive = type.getFields()[fieldName]?.astNode?.directives?.find((d) => d.name.value === 'requiresScopes');
    const scopes = directive?.arguments?.find((argument) => argument.name.value === 'scopes');
    return scopes === undefined ? undefined : valueFromASTUntyped(scopes.value);
  };
  expect(supergraphSdl).toMatch(/@link\(url: "https:\/\/specs\.apollo\.dev\/requiresScopes\/v0\.1"/);
  expect(scopesOf('Query', 'dashboard')).toEqual([['reporting:read']]);
  expect(scopesOf('Query', 'topArticles')).toEqual([['reporting:read']]);
  expect(scopesOf('Article', 'analytics')).toEqual([['reporting:read']]);
  expect(scopesOf('ArticleAnalytics', 'revenue')).toEqual([['revenue:read']]);
  expect(scopesOf('Query', 'recommendations')).toBeUndefined();
});

test('Hive Gateway with hmacSignature is answered; the subgraph checks the signature of what the gateway sent', async () => {
  const hive = await gateway({ hmacSignature: { secret: HMAC_SECRET } });
  const result = await postGraphQL<{ dashboard: Array<{ total: number }> }>(hive.url, TRAFFIC, { days: 7 });
  expect(result.errors).toBeUndefined();
  expect(result.data?.dashboard[0]?.total).toEqual(expect.any(Number));
});

test('a request Hive Gateway signed, replayed with changed variables, is refused; replayed as signed, it is answered', async () => {
  const capture = await startCapturingProxy(analytics.url);
  try {
    const { supergraphSdl: throughProxy } = composeSupergraph([
      { name: ANALYTICS_SUBGRAPH_NAME, url: capture.url, typeDefs: loadAnalyticsTypeDefs() },
      { name: CMS_SUBGRAPH_NAME, url: cms.url, typeDefs: parse(CMS_TYPE_DEFS) },
    ]);
    const hive = await startHiveGateway(throughProxy, { hmacSignature: { secret: HMAC_SECRET } });
    gateways.push(hive);
    expect((await postGraphQL(hive.url, TRAFFIC, { days: 2 })).errors).toBeUndefined();
    const signed = JSON.parse(capture.bodies.at(-1) ?? '{}') as {
      query: string;
      variables: Record<string, unknown>;
      extensions: Record<string, unknown>;
    };
    expect(signed.extensions['hmac-signature']).toEqual(expect.any(String));

    const before = await dashboardQueriesSent();
    const tampered = await fetch(analytics.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...signed, variables: { ...signed.variables, days: 30 } }),
    });
    expect(tampered.status).toBe(401);
    expect(await tampered.text()).toMatch(/does not match the request's query and variables/);
    expect(await dashboardQueriesSent()).toBe(before);

    const replayed = await fetch(analytics.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(signed),
    });
    expect(replayed.status).toBe(200);
  } finally {
    await capture.close();
  }
});

test('Hive Gateway signing with another secret, or not at all, is refused by the subgraph before any upstream call', async () => {
  const before = await dashboardQueriesSent();
  for (const hive of [await gateway({ hmacSignature: { secret: 'another-secret' } }), await gateway({})]) {
    const result = await postGraphQL<{ dashboard: unknown }>(hive.url, TRAFFIC, { days: 3 });
    expect(result.data?.dashboard ?? null).toBeNull();
    expect(JSON.stringify(result.errors)).toMatch(/hmac-signature|401|Unauthorized|UNAUTHENTICATED/i);
    expect(JSON.stringify(result.errors)).not.toContain(HMAC_SECRET);
  }
  expect(await dashboardQueriesSent()).toBe(before);
});

test('Hive Gateway refuses at the edge from the same @requiresScopes, and the subgraph is not called', async () => {
  const hive = await gateway({
    hmacSignature: { secret: HMAC_SECRET },
    genericAuth: {
      mode: 'protect-granular',
      // The edge's user: scopes from a header, as a JWT plugin would give them.
      resolveUserFn: (context) => ({ scope: context.request.headers.get('x-test-scopes') ?? '' }),
      extractScopes: (user) => String(user.scope).split(' ').filter(Boolean),
    },
  });
  const before = await dashboardQueriesSent();
  const refused = await postGraphQL<{ dashboard: unknown }>(hive.url, TRAFFIC, { days: 5 }, { 'x-test-scopes': 'profile' });
  expect(refused.data?.dashboard ?? null).toBeNull();
  expect(refused.errors?.length).toBeGreaterThan(0);
  expect(await dashboardQueriesSent()).toBe(before);

  const allowed = await postGraphQL<{ dashboard: Array<{ total: number }> }>(
    hive.url,
    TRAFFIC,
    { days: 5 },
    { 'x-test-scopes': 'reporting:read' },
  );
  expect(allowed.errors).toBeUndefined();
  expect(allowed.data?.dashboard[0]?.total).toEqual(expect.any(Number));
});

/** Forwards every request to `target` unchanged and keeps each body as sent: what the subgraph receives from the gateway. */
async function startCapturingProxy(target: string): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    bodies.push(body);
    const answer = await fetch(target, { method: incoming.method ?? 'POST', headers: { 'content-type': 'application/json' }, body });
    outgoing.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    outgoing.end(await answer.text());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
