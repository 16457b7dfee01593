/**
 * CALLER_AUTH over real HTTP: each proof missing, wrong and right, against
 * the subgraph in front of a real emulator. Every refusal is a 401 naming
 * the problem (never a secret), made before any upstream call: the
 * emulator's counts do not move.
 */
import type { RunningEmulator } from '../../emulator';
import { METRICS_DEFAULTS, type CallerAuthConfig } from '../../src/config';
import { signParams } from '../../src/auth/callers/hmacSignature';
import { Metrics } from '../../src/observability/metrics/metrics';
import { Secret } from '../../src/redaction/secret';
import { readStats, startSmallEmulator, startSubgraph, type RunningSubgraph } from '../support/subgraphHttp';
import {
  AUDIENCE,
  callerAuth,
  HMAC_SECRET,
  ISSUER,
  postGraphQL,
  ROUTER_SECRET,
  serveJwks,
  signingKey,
  signToken,
  unsignedToken,
  type GraphQLAnswer,
  type JwksServer,
  type SigningKey,
} from './support';

const DASHBOARD = `query Views($metrics: [Metric!]!) {
  dashboard(query: { dates: { last: { number: 7, unit: DAY } }, metrics: $metrics }) { metric total }
}`;
const VARIABLES = { metrics: ['PAGE_VIEWS_TOTAL'] };
const READER = { scope: 'reporting:read' };

let emulator: RunningEmulator;
let jwks: JwksServer;
let key: SigningKey;
let otherKey: SigningKey;

beforeAll(async () => {
  emulator = await startSmallEmulator();
  key = await signingKey('key-1');
  otherKey = await signingKey('key-2');
  jwks = await serveJwks([key]);
});

afterAll(async () => {
  await jwks?.close();
  await emulator?.close();
});

async function upstreamCalls(): Promise<number> {
  const stats = await readStats(emulator);
  return stats.signin.count + stats.dashboard.count + stats.render.count;
}

/** The answer, checked to be a refusal that reached no upstream and echoes no secret. */
async function expectRefused(send: () => Promise<GraphQLAnswer>, status: number, problem: RegExp): Promise<void> {
  const before = await upstreamCalls();
  const answer = await send();
  expect(answer.status).toBe(status);
  expect(answer.body.errors?.[0]?.extensions?.code).toBe(status === 401 ? 'UNAUTHENTICATED' : 'SERVICE_UNAVAILABLE');
  expect(answer.body.errors?.[0]?.message).toMatch(problem);
  expect(answer.text).not.toContain(ROUTER_SECRET);
  expect(answer.text).not.toContain(HMAC_SECRET);
  expect(await upstreamCalls()).toBe(before);
}

function expectAnswered(answer: GraphQLAnswer): void {
  expect(answer.status).toBe(200);
  expect(answer.body.errors).toBeUndefined();
  expect(answer.body.data?.dashboard).toEqual([{ metric: 'PAGE_VIEWS_TOTAL', total: expect.any(Number) }]);
}

function withSubgraph(auth: () => CallerAuthConfig, tests: (subgraph: () => RunningSubgraph) => void): void {
  let subgraph: RunningSubgraph;
  beforeAll(async () => {
    subgraph = await startSubgraph(emulator, {
      config: { callerAuth: auth() },
      metrics: new Metrics({ ...METRICS_DEFAULTS, processMetrics: false }),
    });
  });
  afterAll(async () => {
    await subgraph?.close();
  });
  tests(() => subgraph);
}

describe('router-secret', () => {
  withSubgraph(
    () => callerAuth(['router-secret']),
    (subgraph) => {
      test('missing: 401 naming the header', async () => {
        await expectRefused(
          () => postGraphQL(subgraph().graphqlUrl, DASHBOARD, { variables: VARIABLES }),
          401,
          /missing the x-router-secret header/,
        );
      });

      test('wrong: 401, the expected secret never shown', async () => {
        await expectRefused(
          () =>
            postGraphQL(subgraph().graphqlUrl, DASHBOARD, { variables: VARIABLES, headers: { 'x-router-secret': `${ROUTER_SECRET}x` } }),
          401,
          /x-router-secret header does not hold the router's secret/,
        );
      });

      test('right: the operation runs', async () => {
        expectAnswered(
          await postGraphQL(subgraph().graphqlUrl, DASHBOARD, { variables: VARIABLES, headers: { 'x-router-secret': ROUTER_SECRET } }),
        );
      });

      test('health, readiness and /metrics need no proof', async () => {
        for (const path of ['/health/live', '/health/ready', '/metrics']) {
          expect((await fetch(`${subgraph().baseUrl}${path}`)).status).toBe(200);
        }
      });
    },
  );
});

describe('rotating the router secret and the HMAC secret (*_PREVIOUS)', () => {
  const NEXT = 'router-secret-next-fedcba';
  const NEXT_HMAC = 'hmac-secret-next-abcdef';
  withSubgraph(
    () => ({
      proofs: ['router-secret', 'hmac'],
      routerSecret: { header: 'x-router-secret', secret: new Secret(NEXT), previous: new Secret(ROUTER_SECRET) },
      hmac: { secret: new Secret(NEXT_HMAC), previous: new Secret(HMAC_SECRET) },
    }),
    (subgraph) => {
      const send = (routerSecret: string, hmacSecret: string) =>
        postGraphQL(subgraph().graphqlUrl, DASHBOARD, {
          variables: VARIABLES,
          headers: { 'x-router-secret': routerSecret },
          extensions: { 'hmac-signature': signParams({ query: DASHBOARD, variables: VARIABLES }, new Secret(hmacSecret)) },
        });

      test('the new and the previous secrets are both accepted while both are set', async () => {
        expectAnswered(await send(NEXT, NEXT_HMAC));
        expectAnswered(await send(ROUTER_SECRET, HMAC_SECRET));
      });

      test('any other secret is refused, naming both problems, neither secret shown', async () => {
        await expectRefused(() => send('stale-secret', 'stale-hmac'), 401, /x-router-secret header does not hold the router's secret/);
        const answer = await send(NEXT, 'stale-hmac');
        expect(answer.status).toBe(401);
        expect(answer.text).not.toContain(NEXT);
        expect(answer.text).not.toContain(NEXT_HMAC);
      });
    },
  );
});

describe('hmac (Hive Gateway signs query and variables)', () => {
  const sign = (variables: Record<string, unknown>) => signParams({ query: DASHBOARD, variables }, new Secret(HMAC_SECRET));
  withSubgraph(
    () => callerAuth(['hmac']),
    (subgraph) => {
      test('missing: 401 naming the extension', async () => {
        await expectRefused(
          () => postGraphQL(subgraph().graphqlUrl, DASHBOARD, { variables: VARIABLES }),
          401,
          /missing extensions\["hmac-signature"\]/,
        );
      });

      test('signed with another secret: 401', async () => {
        const forged = signParams({ query: DASHBOARD, variables: VARIABLES }, new Secret('not-the-secret'));
        await expectRefused(
          () => postGraphQL(subgraph().graphqlUrl, DASHBOARD, { variables: VARIABLES, extensions: { 'hmac-signature': forged } }),
          401,
          /does not match the request's query and variables/,
        );
      });

      test('tampered: a signed request with changed variables is refused', async () => {
        const signature = sign(VARIABLES);
        await expectRefused(
          () =>
            postGraphQL(subgraph().graphqlUrl, DASHBOARD, {
              variables: { metrics: ['UNIQUE_USERS'] },
              extensions: { 'hmac-signature': signature },
            }),
          401,
          /does not match/,
        );
      });

      test('right: the operation runs', async () => {
        expectAnswered(
          await postGraphQL(subgraph().graphqlUrl, DASHBOARD, { variables: VARIABLES, extensions: { 'hmac-signature': sign(VARIABLES) } }),
        );
      });
    },
  );
});

describe('jwt (JWKS from a local HTTP endpoint)', () => {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  withSubgraph(
    () => callerAuth(['jwt'], { jwks: { url: jwks.url }, issuer: ISSUER, audience: AUDIENCE }),
    (subgraph) => {
      const refusedToken = async (token: string, problem: RegExp) =>
        expectRefused(() => postGraphQL(subgraph().graphqlUrl, DASHBOARD, { variables: VARIABLES, headers: bearer(token) }), 401, problem);

      test('missing: 401 asking for a bearer token', async () => {
        await expectRefused(() => postGraphQL(subgraph().graphqlUrl, DASHBOARD, { variables: VARIABLES }), 401, /missing a bearer token/);
      });

      test('not a bearer token: 401', async () => {
        await expectRefused(
          () => postGraphQL(subgraph().graphqlUrl, DASHBOARD, { variables: VARIABLES, headers: { authorization: 'Basic dXNlcjpwYXNz' } }),
          401,
          /not a Bearer token/,
        );
      });

      test('expired: 401', async () => {
        await refusedToken(await signToken(key, { claims: READER, expiresIn: -60 }), /the token has expired/);
      });

      test('wrong issuer: 401', async () => {
        await refusedToken(await signToken(key, { claims: READER, issuer: 'https://evil.example/' }), /issued by another issuer/);
      });

      test('wrong audience: 401', async () => {
        await refusedToken(await signToken(key, { claims: READER, audience: 'another-api' }), /meant for another audience/);
      });

      test('alg none: 401', async () => {
        await refusedToken(unsignedToken(READER), /not signed with an allowed asymmetric algorithm|not a valid signed JWT/);
      });

      test('signed by another key (same kid as a known key): 401', async () => {
        await refusedToken(
          await signToken({ ...otherKey, kid: key.kid }, { claims: READER }),
          /not signed by a key of the configured JWKS/,
        );
      });

      test('signed by a key the JWKS does not hold: 401, and the JWKS is refetched at most once for unknown kids', async () => {
        const before = jwks.fetches();
        await refusedToken(await signToken(otherKey, { claims: READER }), /not signed by a key of the configured JWKS/);
        await refusedToken(
          await signToken({ ...otherKey, kid: 'key-3' }, { claims: READER }),
          /not signed by a key of the configured JWKS/,
        );
        expect(jwks.fetches() - before).toBeLessThanOrEqual(1);
      });

      test('right: the operation runs, and the JWKS is fetched once and cached', async () => {
        expectAnswered(
          await postGraphQL(subgraph().graphqlUrl, DASHBOARD, {
            variables: VARIABLES,
            headers: bearer(await signToken(key, { claims: READER })),
          }),
        );
        const fetched = jwks.fetches();
        expectAnswered(
          await postGraphQL(subgraph().graphqlUrl, DASHBOARD, {
            variables: VARIABLES,
            headers: bearer(await signToken(key, { claims: READER })),
          }),
        );
        expect(jwks.fetches()).toBe(fetched);
        expect(fetched).toBeGreaterThanOrEqual(1);
      });
    },
  );
});

describe('jwt forwarded by Hive Gateway: accepted only with its token (forward: { token: true }), verified against the JWKS', () => {
  const signed = (variables: Record<string, unknown>, secret = HMAC_SECRET) =>
    signParams({ query: DASHBOARD, variables }, new Secret(secret));
  const now = () => Math.floor(Date.now() / 1000);
  const claims = () => ({ iss: ISSUER, aud: AUDIENCE, sub: 'user-1', exp: now() + 300, ...READER });
  const forwardedToken = (token: string) => ({ payload: claims(), token: { value: token, prefix: 'Bearer' } });
  withSubgraph(
    () => callerAuth(['hmac', 'jwt'], { jwks: { url: jwks.url }, issuer: ISSUER, audience: AUDIENCE }),
    (subgraph) => {
      const send = (extensions: Record<string, unknown>, variables: Record<string, unknown> = VARIABLES) =>
        postGraphQL(subgraph().graphqlUrl, DASHBOARD, { variables, extensions });

      test('the token forwarded in extensions.jwt of a signed request: the operation runs', async () => {
        expectAnswered(await send({ 'hmac-signature': signed(VARIABLES), jwt: forwardedToken(await signToken(key, { claims: READER })) }));
      });

      test("the caller's claims are the token's, never the payload beside it", async () => {
        const revenue = { metrics: ['REVENUE_TOTAL'] };
        const token = await signToken(key, { claims: READER });
        const answer = await send(
          {
            'hmac-signature': signed(revenue),
            jwt: { ...forwardedToken(token), payload: { ...claims(), scope: 'reporting:read revenue:read' } },
          },
          revenue,
        );
        expect(answer.status).toBe(200);
        expect(answer.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      });

      test('claims alone in extensions.jwt of a signed request (a made-up payload, no token): 401 naming it', async () => {
        await expectRefused(
          () => send({ 'hmac-signature': signed(VARIABLES), jwt: { payload: { ...claims(), scope: 'reporting:read revenue:read' } } }),
          401,
          /extensions\.jwt holds claims without their token/,
        );
      });

      test('a signature made with another secret, beside a valid forwarded token: the 401 names the signature only', async () => {
        const token = await signToken(key, { claims: READER });
        const before = await upstreamCalls();
        const answer = await send({ 'hmac-signature': signed(VARIABLES, 'not-the-secret'), jwt: forwardedToken(token) });
        expect(answer.status).toBe(401);
        expect(answer.body.errors?.[0]?.extensions?.problems).toEqual([
          `extensions["hmac-signature"] does not match the request's query and variables`,
        ]);
        expect(await upstreamCalls()).toBe(before);
      });

      test('neither a signature nor a token: the 401 names both', async () => {
        const answer = await send({});
        expect(answer.status).toBe(401);
        expect(answer.body.errors?.[0]?.extensions?.problems).toEqual([
          'missing extensions["hmac-signature"] (the router\'s HMAC signature)',
          expect.stringMatching(/^missing a bearer token/),
        ]);
      });

      test('a forwarded token past its expiry: 401', async () => {
        const token = await signToken(key, { claims: READER, expiresIn: -120 });
        await expectRefused(
          () => send({ 'hmac-signature': signed(VARIABLES), jwt: forwardedToken(token) }),
          401,
          /forwarded token was refused: the token has expired/,
        );
      });

      test('a forwarded token signed by another key is refused', async () => {
        const token = await signToken(otherKey, { claims: READER });
        await expectRefused(
          () => send({ 'hmac-signature': signed(VARIABLES), jwt: forwardedToken(token) }),
          401,
          /forwarded token was refused/,
        );
      });
    },
  );
});

describe('JWKS unreachable', () => {
  withSubgraph(
    () => callerAuth(['jwt'], { jwks: { url: 'http://127.0.0.1:9/jwks.json' }, issuer: ISSUER }),
    (subgraph) => {
      test('503: the caller is not at fault, and nothing reaches the upstream', async () => {
        const token = await signToken(key, { claims: READER });
        await expectRefused(
          () => postGraphQL(subgraph().graphqlUrl, DASHBOARD, { variables: VARIABLES, headers: { authorization: `Bearer ${token}` } }),
          503,
          /signing keys \(JWKS\) could not be fetched/,
        );
      });
    },
  );
});
