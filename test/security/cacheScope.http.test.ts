/**
 * Nothing shared that a caller's scope shaped: with the jwt proof on, the
 * subgraph picks each caller's rows by its sites and checks its scopes, so
 * every reporting answer is `cache-control: …, private` (a router's or a
 * CDN's shared cache may not give it to another caller), and the subgraph's
 * own response cache (on here) keys it by the caller's scopes and sites.
 * Over real HTTP against a real emulator.
 */
import type { RunningEmulator } from '../../emulator';
import { startSmallEmulator, startSubgraph, type RunningSubgraph } from '../support/subgraphHttp';
import {
  AUDIENCE,
  callerAuth,
  ISSUER,
  postGraphQL,
  serveJwks,
  signingKey,
  signToken,
  type GraphQLAnswer,
  type JwksServer,
  type SigningKey,
} from './support';

const GLOBE = 'dailyglobe.example';
const METRO = 'metrotimes.example';
const READER = 'reporting:read';

let emulator: RunningEmulator;
let jwks: JwksServer;
let key: SigningKey;
let subgraph: RunningSubgraph;

beforeAll(async () => {
  emulator = await startSmallEmulator();
  key = await signingKey('key-1');
  jwks = await serveJwks([key]);
  subgraph = await startSubgraph(emulator, {
    config: {
      callerAuth: callerAuth(['jwt'], { jwks: { url: jwks.url }, issuer: ISSUER, audience: AUDIENCE, sitesClaim: 'sites' }),
      responseCacheEnabled: true,
    },
  });
});

afterAll(async () => {
  await subgraph?.close();
  await jwks?.close();
  await emulator?.close();
});

async function ask(claims: Record<string, unknown>, query: string, variables?: Record<string, unknown>): Promise<GraphQLAnswer> {
  const token = await signToken(key, { claims });
  const answer = await postGraphQL(subgraph.graphqlUrl, query, {
    headers: { authorization: `Bearer ${token}` },
    ...(variables ? { variables } : {}),
  });
  expect(answer.status).toBe(200);
  expect(answer.body.errors).toBeUndefined();
  return answer;
}

function expectPrivate(answer: GraphQLAnswer): void {
  const cacheControl = answer.headers.get('cache-control') ?? '';
  expect(cacheControl).toMatch(/\bprivate\b/);
  expect(cacheControl).not.toMatch(/\bpublic\b/);
}

const BY_DOMAIN = `{ dashboard(query: { dates: { last: { number: 7, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL], groupBy: [DOMAIN] }) {
  rows { dimensions { value } }
} }`;

function domainsOf(answer: GraphQLAnswer): string[] {
  const results = answer.body.data?.dashboard as Array<{ rows: Array<{ dimensions: Array<{ value: string }> }> }>;
  return results[0].rows.map((row) => row.dimensions[0].value);
}

it('sends the same dashboard to two callers of different sites private, each with its own rows, again and again', async () => {
  for (let round = 0; round < 2; round += 1) {
    const globe = await ask({ scope: READER, sites: [GLOBE] }, BY_DOMAIN);
    const metro = await ask({ scope: READER, sites: [METRO] }, BY_DOMAIN);
    expect(domainsOf(globe)).toEqual([GLOBE]);
    expect(domainsOf(metro)).toEqual([METRO]);
    expectPrivate(globe);
    expectPrivate(metro);
  }
});

it('sends topArticles and Article.analytics private too: their rows and numbers are the caller’s sites’', async () => {
  const ranking = await ask({ scope: READER, sites: [GLOBE] }, `{ topArticles(limit: 3) { value article { url } } }`);
  expectPrivate(ranking);
  const url = emulator.store.articles.find((article) => article.domain === GLOBE)!.url;
  const analytics = await ask(
    { scope: READER, sites: [GLOBE] },
    `query ($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { pageViews } } } }`,
    { reps: [{ __typename: 'Article', url }] },
  );
  expectPrivate(analytics);
});

it('keeps an answer public when it is the same for every caller: recommendations without a clientId', async () => {
  const experienceId = emulator.demo.experiences.find((experience) => experience.domain === GLOBE)!.id;
  const answer = await ask(
    { scope: READER, sites: [GLOBE] },
    `{ recommendations(experienceId: "${experienceId}", domain: "${GLOBE}") { url } }`,
  );
  expect(answer.headers.get('cache-control')).toMatch(/\bpublic\b/);
});
