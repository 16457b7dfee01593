/**
 * When the JWKS endpoint fails (issue 34 item 4), over real HTTP against a
 * local JWKS server that misbehaves on demand: a bad status, a body that is
 * not JSON, a body without keys, no answer, a body that stalls, a body of
 * 50 MB. Each time a valid caller gets 503 SERVICE_UNAVAILABLE with
 * Retry-After (never a 401: the caller is not at fault), a warn line names
 * the JWKS URL, nothing reaches the upstream, and a body past the 1 MB cap
 * is not read further. Once the endpoint answers again, so does the subgraph.
 */
import type { RunningEmulator } from '../../emulator';
import { readStats, startSmallEmulator, startSubgraph, type RunningSubgraph } from '../support/subgraphHttp';
import {
  AUDIENCE,
  callerAuth,
  HUGE_JWKS_BYTES,
  ISSUER,
  postGraphQL,
  serveFaultyJwks,
  signingKey,
  signToken,
  type FaultyJwksServer,
  type JwksFault,
  type SigningKey,
} from './support';

const DASHBOARD = '{ dashboard(query: { dates: { last: { number: 7, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL] }) { metric total } }';
/** Short, so that `silent` and `stalled-body` fail fast; the default is 5 s. */
const JWKS_TIMEOUT_MS = 300;
/** Short, so that the recovery is seen at once; the default is a few seconds. */
const RETRY_AFTER_FAILURE_MS = 0;

interface LogLine {
  fields: Record<string, unknown>;
  message: string;
}

let emulator: RunningEmulator;
let jwks: FaultyJwksServer;
let key: SigningKey;
let subgraph: RunningSubgraph;
const warnings: LogLine[] = [];

beforeAll(async () => {
  emulator = await startSmallEmulator();
  key = await signingKey('key-1');
  jwks = await serveFaultyJwks([key]);
  const record = (fields: unknown, message?: unknown): void => {
    warnings.push({ fields: fields as Record<string, unknown>, message: String(message) });
  };
  subgraph = await startSubgraph(emulator, {
    logger: { debug() {}, info() {}, warn: record, error: record },
    config: {
      callerAuth: callerAuth(['jwt'], {
        jwks: { url: jwks.url },
        issuer: ISSUER,
        audience: AUDIENCE,
        jwksFetch: { timeoutMs: JWKS_TIMEOUT_MS, retryAfterFailureMs: RETRY_AFTER_FAILURE_MS },
      }),
    },
  });
});

afterAll(async () => {
  await subgraph?.close();
  await jwks?.close();
  await emulator?.close();
});

async function upstreamCalls(): Promise<number> {
  const stats = await readStats(emulator);
  return stats.signin.count + stats.dashboard.count + stats.render.count;
}

async function askWithValidToken() {
  return postGraphQL(subgraph.graphqlUrl, DASHBOARD, {
    headers: { authorization: `Bearer ${await signToken(key, { claims: { scope: 'reporting:read' } })}` },
  });
}

test.each<[JwksFault, RegExp]>([
  ['status-500', /HTTP 500/],
  ['not-json', /not JSON/],
  ['no-keys', /no "keys" array/],
  ['silent', /no answer within 300 ms/],
  ['stalled-body', /no answer within 300 ms/],
  ['huge', /over 1048576 bytes/],
])('%s: a valid caller gets 503 with Retry-After, a warn line names the JWKS URL, 0 upstream calls', async (fault, reason) => {
  jwks.set(fault);
  warnings.length = 0;
  const before = await upstreamCalls();
  const answer = await askWithValidToken();
  expect(answer.status).toBe(503);
  expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(answer.body.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');
  expect(answer.body.errors?.[0]?.message).toMatch(/signing keys \(JWKS\) could not be fetched/);
  expect(answer.body.errors?.[0]?.message).toMatch(reason);
  expect(warnings).toContainEqual({
    fields: expect.objectContaining({ jwksUrl: jwks.url, problem: expect.stringMatching(reason) }),
    message: expect.any(String),
  });
  expect(await upstreamCalls()).toBe(before);
});

test('a body over the cap is not read further: the reader hangs up long before the 50 MB are sent', async () => {
  jwks.set('huge');
  const answer = await askWithValidToken();
  expect(answer.status).toBe(503);
  await jwks.hugeClosed();
  expect(jwks.hugeBytesSent()).toBeLessThan(HUGE_JWKS_BYTES / 5);
});

test('once the JWKS answers again, the valid caller is answered', async () => {
  jwks.set('ok');
  const answer = await askWithValidToken();
  expect(answer.status).toBe(200);
  expect(answer.body.errors).toBeUndefined();
  expect(answer.body.data?.dashboard).toEqual([{ metric: 'PAGE_VIEWS_TOTAL', total: expect.any(Number) }]);
});
