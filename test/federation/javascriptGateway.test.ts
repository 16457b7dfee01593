/**
 * The JavaScript gateway on purpose (docs/routers.md): with
 * SCHEMA_AUTHORIZATION_DIRECTIVES=false the subgraph's `_service { sdl }`
 * carries no @authenticated / @requiresScopes, so @apollo/gateway's
 * IntrospectAndCompose composes it and serves, while the subgraph, verifying
 * the caller's JWT, still refuses what the token's scopes do not cover. Every
 * hop real HTTP; the emulator counts the reporting queries.
 */
import { ApolloGateway, IntrospectAndCompose, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import type { RunningEmulator } from '../../emulator';
import { AUDIENCE, ISSUER, serveJwks, signingKey, signToken, type JwksServer, type SigningKey } from '../security/support';
import { call, startTestEmulator } from '../support/emulator';
import { startAnalyticsSubgraph, type RunningAnalyticsSubgraph } from '../support/federationAnalytics';
import { postGraphQL } from '../support/federationGateway';

const DOMAIN = 'dailyglobe.example';
const TRAFFIC = `{ dashboard(query: { dates: { last: { number: 7, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL] }) { total } }`;
const SERVICE_SDL = `{ _service { sdl } }`;

let emulator: RunningEmulator;
let key: SigningKey;
let jwks: JwksServer;
let subgraphs: RunningAnalyticsSubgraph[] = [];

beforeAll(async () => {
  emulator = await startTestEmulator();
  key = await signingKey('key-1');
  jwks = await serveJwks([key]);
});

afterAll(async () => {
  for (const subgraph of subgraphs) await subgraph.close();
  await jwks?.close();
  await emulator?.close();
});

async function jwtSubgraph(env: NodeJS.ProcessEnv = {}): Promise<RunningAnalyticsSubgraph> {
  const subgraph = await startAnalyticsSubgraph(emulator.url, {
    CALLER_AUTH: 'jwt',
    JWT_JWKS_URL: jwks.url,
    JWT_ISSUER: ISSUER,
    JWT_AUDIENCE: AUDIENCE,
    ...env,
  });
  subgraphs.push(subgraph);
  return subgraph;
}

const bearer = async (scope: string) => `Bearer ${await signToken(key, { claims: { scope } })}`;

async function serviceSdl(url: string): Promise<string> {
  const answer = await postGraphQL<{ _service: { sdl: string } }>(url, SERVICE_SDL, {}, { authorization: await bearer('') });
  expect(answer.errors).toBeUndefined();
  return answer.data?._service.sdl ?? '';
}

async function dashboardQueriesSent(): Promise<number> {
  return (await call<{ dashboard: { count: number } }>(emulator, '/__emulator/stats')).body.dashboard.count;
}

test('by default `_service { sdl }` carries the authorization directives the routers enforce', async () => {
  const sdl = await serviceSdl((await jwtSubgraph()).url);
  expect(sdl).toMatch(/@requiresScopes\(scopes: \[\["reporting:read"\]\]\)/);
  expect(sdl).toMatch(/import: \[[^\]]*"@requiresScopes"/);
});

describe('SCHEMA_AUTHORIZATION_DIRECTIVES=false behind @apollo/gateway (IntrospectAndCompose)', () => {
  let subgraph: RunningAnalyticsSubgraph;
  let gatewayUrl: string;
  let server: ApolloServer<{ authorization?: string }>;

  beforeAll(async () => {
    subgraph = await jwtSubgraph({ SCHEMA_AUTHORIZATION_DIRECTIVES: 'false' });
    const gateway = new ApolloGateway({
      supergraphSdl: new IntrospectAndCompose({
        subgraphs: [{ name: 'analytics', url: subgraph.url }],
        // CALLER_AUTH=jwt closes introspection too: the gateway's own service token opens it.
        introspectionHeaders: { authorization: await bearer('') },
      }),
      // The caller's token travels to the subgraph, which verifies it and enforces the scopes.
      buildService: ({ url }) =>
        new RemoteGraphQLDataSource<{ authorization?: string }>({
          url,
          willSendRequest({ request, context }) {
            if (context.authorization !== undefined) request.http?.headers.set('authorization', context.authorization);
          },
        }),
    });
    server = new ApolloServer({ gateway });
    ({ url: gatewayUrl } = await startStandaloneServer(server, {
      listen: { port: 0, host: '127.0.0.1' },
      context: async ({ req }) => (req.headers.authorization === undefined ? {} : { authorization: req.headers.authorization }),
    }));
  });

  afterAll(async () => {
    await server?.stop();
  });

  test('`_service { sdl }` has no @authenticated or @requiresScopes, and keeps the rest (keys, costs, cache hints)', async () => {
    const sdl = await serviceSdl(subgraph.url);
    // Only the definitions every federation 2.9 subgraph prints remain: no field uses them, none is imported.
    const mentions = sdl.split('\n').filter((line) => /requiresScopes|authenticated/.test(line));
    expect(mentions.length).toBeGreaterThan(0);
    for (const line of mentions) expect(line).toMatch(/^directive @federation__(requiresScopes|authenticated)\b/);
    expect(sdl).toMatch(/@key\(fields: "url"\)/);
    expect(sdl).toMatch(/@cost\(weight: 600\)/);
    expect(sdl).toMatch(/@cacheControl/);
  });

  test('the gateway composes it and serves a query with the caller token', async () => {
    const experience = emulator.demo.experiences.find((candidate) => candidate.domain === DOMAIN);
    const answer = await postGraphQL<{ recommendations: { url: string }[] }>(
      gatewayUrl,
      `{ recommendations(experienceId: "${experience?.id}", domain: "${DOMAIN}") { url } }`,
      {},
      { authorization: await bearer('') },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.recommendations.length).toBeGreaterThan(0);
  });

  test('the subgraph still refuses a field out of the token scopes (FORBIDDEN), before any reporting query', async () => {
    const before = await dashboardQueriesSent();
    const refused = await postGraphQL<{ dashboard: unknown }>(gatewayUrl, TRAFFIC, {}, { authorization: await bearer('profile') });
    expect(refused.data?.dashboard ?? null).toBeNull();
    expect(refused.errors?.map((error) => error.extensions?.code)).toContain('FORBIDDEN');
    expect(await dashboardQueriesSent()).toBe(before);

    const allowed = await postGraphQL<{ dashboard: { total: number }[] }>(
      gatewayUrl,
      TRAFFIC,
      {},
      { authorization: await bearer('reporting:read') },
    );
    expect(allowed.errors).toBeUndefined();
    expect(allowed.data?.dashboard[0]?.total).toEqual(expect.any(Number));
  });
});
