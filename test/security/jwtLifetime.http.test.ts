/**
 * A JWT's times over real HTTP (issue 34 item 4), the JWKS served by a local
 * HTTP server: `exp` is required; `iat` or `nbf` more than the clock
 * tolerance in the future is refused; JWT_MAX_TOKEN_LIFETIME_SECONDS bounds
 * `exp − iat`. Each refusal is a 401 naming the claim, made before any
 * upstream call (the emulator's counts do not move).
 */
import type { RunningEmulator } from '../../emulator';
import type { CallerAuthConfig } from '../../src/config';
import { readStats, startSmallEmulator, startSubgraph, type RunningSubgraph } from '../support/subgraphHttp';
import {
  AUDIENCE,
  callerAuth,
  ISSUER,
  postGraphQL,
  serveJwks,
  signingKey,
  tokenOfClaims,
  type JwksServer,
  type SigningKey,
} from './support';

const DASHBOARD = '{ dashboard(query: { dates: { last: { number: 7, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL] }) { metric total } }';
const READER = { scope: 'reporting:read' };
const HOUR = 3600;
const TEN_YEARS = 10 * 365 * 24 * HOUR;

let emulator: RunningEmulator;
let jwks: JwksServer;
let key: SigningKey;

beforeAll(async () => {
  emulator = await startSmallEmulator();
  key = await signingKey('key-1');
  jwks = await serveJwks([key]);
});

afterAll(async () => {
  await jwks?.close();
  await emulator?.close();
});

const now = () => Math.floor(Date.now() / 1000);

async function upstreamCalls(): Promise<number> {
  const stats = await readStats(emulator);
  return stats.signin.count + stats.dashboard.count + stats.render.count;
}

function withSubgraph(
  jwt: () => NonNullable<CallerAuthConfig['jwt']>,
  tests: (ask: (claims: Record<string, unknown>) => Promise<void>) => void,
) {
  let subgraph: RunningSubgraph;
  beforeAll(async () => {
    subgraph = await startSubgraph(emulator, { config: { callerAuth: callerAuth(['jwt'], jwt()) } });
  });
  afterAll(async () => {
    await subgraph?.close();
  });
  const send = async (claims: Record<string, unknown>) =>
    postGraphQL(subgraph.graphqlUrl, DASHBOARD, {
      headers: { authorization: `Bearer ${await tokenOfClaims(key, { ...READER, ...claims })}` },
    });
  tests(async (claims) => {
    const answer = await send(claims);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data?.dashboard).toEqual([{ metric: 'PAGE_VIEWS_TOTAL', total: expect.any(Number) }]);
  });
  return {
    refused: async (claims: Record<string, unknown>, problem: RegExp) => {
      const before = await upstreamCalls();
      const answer = await send(claims);
      expect(answer.status).toBe(401);
      expect(answer.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      expect(answer.body.errors?.[0]?.extensions?.problems).toEqual([expect.stringMatching(problem)]);
      expect(await upstreamCalls()).toBe(before);
    },
  };
}

describe('without JWT_MAX_TOKEN_LIFETIME_SECONDS', () => {
  const subgraph = withSubgraph(
    () => ({ jwks: { url: jwks.url }, issuer: ISSUER, audience: AUDIENCE }),
    (answered) => {
      test('a token with exp, iat and nbf in their places is answered; a few seconds of clock skew are tolerated', async () => {
        await answered({ iat: now() - 60, nbf: now() - 60, exp: now() + HOUR });
        await answered({ iat: now() + 5, nbf: now() + 5, exp: now() + HOUR });
      });
    },
  );

  test('no exp: 401 naming the claim (a token that never expires is refused)', async () => {
    await subgraph.refused({ iat: now() - 60 }, /exp claim is missing/);
  });

  test('iat ten years ahead: 401 naming the claim', async () => {
    await subgraph.refused({ iat: now() + TEN_YEARS, exp: now() + TEN_YEARS + HOUR }, /iat claim is in the future/);
  });

  test('nbf past the clock tolerance: 401 naming the claim', async () => {
    await subgraph.refused({ nbf: now() + HOUR, exp: now() + 2 * HOUR }, /not valid yet \(nbf\)/);
  });
});

describe('with JWT_MAX_TOKEN_LIFETIME_SECONDS=3600', () => {
  const subgraph = withSubgraph(
    () => ({ jwks: { url: jwks.url }, issuer: ISSUER, audience: AUDIENCE, maxTokenLifetimeSeconds: HOUR }),
    (answered) => {
      test('a token living at most the bound is answered', async () => {
        await answered({ iat: now() - 60, exp: now() - 60 + HOUR });
      });
    },
  );

  test('exp = 1e12: 401 naming the lifetime and the bound', async () => {
    await subgraph.refused({ iat: now() - 60, exp: 1e12 }, /lifetime \(exp − iat\).*JWT_MAX_TOKEN_LIFETIME_SECONDS/);
  });

  test('no iat: 401 naming it (the lifetime cannot be bounded)', async () => {
    await subgraph.refused({ exp: now() + 60 }, /iat claim is missing/);
  });
});
