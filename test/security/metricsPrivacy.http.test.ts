/**
 * `/metrics` without personal data (issue 34 item 8), scraped over real HTTP
 * from a subgraph whose JWT callers spent and overran their fair share:
 * by default (METRICS_CALLER_LABEL=hashed) no caller id (a JWT's azp or sub,
 * often a person), no client name and no URL (the upstream's, the JWKS's)
 * appears anywhere in the scrape; the caller label is a short keyed hash,
 * the same on every replica when the key is configured. `off` drops the
 * label; `raw` shows the ids, for an operator who chooses it.
 */
import { createHmac } from 'node:crypto';
import type { RunningEmulator } from '../../emulator';
import { DEFAULT_ANALYTICS_CONFIG, EMBEDDED_GOVERNOR_CONFIG, METRICS_DEFAULTS } from '../../src/config';
import { Metrics, type CallerLabelOptions } from '../../src/observability/metrics/metrics';
import { Secret } from '../../src/redaction/secret';
import { startSmallEmulator, startSubgraph, type RunningSubgraph } from '../support/subgraphHttp';
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

/** 0.005 of 600 slots a minute over 60 s: 3 slots per caller a minute. */
const SHARE = { dashboardSharePerCaller: 0.005, dashboardShareWindowSeconds: 60 };
const SLOTS_PER_CALLER = 3;
const SERVICE = 'svc-newsroom.web@clients';
const PERSON = 'jane.doe@dailyglobe.example';
const CLIENT_NAME = 'janes-laptop-dashboard';
const LABEL_KEY = 'metrics-label-key-0123456789';

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

/** A subgraph with this caller label, where SERVICE spends 2 slots and PERSON its whole share and one more ask; its scrape. */
async function scrapeAfterAsks(callerLabel: CallerLabelOptions | undefined): Promise<string> {
  const metrics = new Metrics({ ...METRICS_DEFAULTS, processMetrics: false, ...(callerLabel === undefined ? {} : { callerLabel }) });
  let subgraph: RunningSubgraph | undefined;
  try {
    subgraph = await startSubgraph(emulator, {
      metrics,
      config: {
        callerAuth: callerAuth(['jwt'], { jwks: { url: jwks.url }, issuer: ISSUER, audience: AUDIENCE }),
        analytics: { ...DEFAULT_ANALYTICS_CONFIG, ...SHARE },
        governor: { ...EMBEDDED_GOVERNOR_CONFIG, reportingPerMinute: 600 },
      },
    });
    const ask = async (claims: Record<string, unknown>, days: number) => {
      const now = Math.floor(Date.now() / 1000);
      const token = await tokenOfClaims(key, { scope: 'reporting:read', iat: now, exp: now + 300, ...claims });
      return postGraphQL(
        subgraph!.graphqlUrl,
        `{ dashboard(query: { dates: { last: { number: ${days}, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL] }) { metric total } }`,
        { headers: { authorization: `Bearer ${token}`, 'apollographql-client-name': CLIENT_NAME } },
      );
    };
    let days = 1;
    const fresh = () => days++; // a dashboard not asked before, so each ask spends a slot
    for (let count = 0; count < 2; count += 1) expect((await ask({ azp: SERVICE }, fresh())).body.errors).toBeUndefined();
    for (let count = 0; count < SLOTS_PER_CALLER; count += 1) expect((await ask({ sub: PERSON }, fresh())).body.errors).toBeUndefined();
    const refused = await ask({ sub: PERSON }, fresh());
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_RATE_LIMITED');
    const response = await fetch(`${subgraph.baseUrl}/metrics`);
    expect(response.status).toBe(200);
    return await response.text();
  } finally {
    await subgraph?.close();
  }
}

function callerLabels(scrape: string, metric: string): string[] {
  return [...scrape.matchAll(new RegExp(`^${metric}\\{caller="([^"]*)"\\}`, 'gm'))].map((match) => match[1]);
}

function expectNoPersonalData(scrape: string): void {
  for (const personal of [SERVICE, PERSON, CLIENT_NAME, 'svc-newsroom', 'jane.doe', emulator.url, new URL(emulator.url).host, jwks.url]) {
    expect(scrape).not.toContain(personal);
  }
  expect(scrape).not.toMatch(/https?:\/\//);
}

test('default (hashed): no caller id, client name or URL in /metrics; each caller a short hash of its own', async () => {
  const scrape = await scrapeAfterAsks(undefined);
  expectNoPersonalData(scrape);
  const spent = callerLabels(scrape, 'subgraph_reporting_caller_slots_total');
  expect(spent).toHaveLength(2);
  for (const label of spent) expect(label).toMatch(/^[0-9a-f]{12}$/);
  expect(callerLabels(scrape, 'subgraph_reporting_caller_refusals_total')).toEqual([expect.stringMatching(/^[0-9a-f]{12}$/)]);
});

test('hashed with a configured key: the label is HMAC-SHA256(key, id), cut short, so every replica shows the same', async () => {
  const scrape = await scrapeAfterAsks({ mode: 'hashed', key: new Secret(LABEL_KEY) });
  expectNoPersonalData(scrape);
  const label = (id: string) => createHmac('sha256', LABEL_KEY).update(id).digest('hex').slice(0, 12);
  expect(scrape).toContain(`subgraph_reporting_caller_slots_total{caller="${label(SERVICE)}"} 2`);
  expect(scrape).toContain(`subgraph_reporting_caller_slots_total{caller="${label(PERSON)}"} ${SLOTS_PER_CALLER}`);
  expect(scrape).toContain(`subgraph_reporting_caller_refusals_total{caller="${label(PERSON)}"} 1`);
});

test('off: the series have no caller label at all', async () => {
  const scrape = await scrapeAfterAsks({ mode: 'off' });
  expectNoPersonalData(scrape);
  expect(scrape).not.toContain('caller=');
  expect(scrape).toMatch(new RegExp(`^subgraph_reporting_caller_slots_total ${2 + SLOTS_PER_CALLER}$`, 'm'));
  expect(scrape).toMatch(/^subgraph_reporting_caller_refusals_total 1$/m);
});

test('raw (the operator chose it): the ids as they are', async () => {
  const scrape = await scrapeAfterAsks({ mode: 'raw' });
  expect(scrape).toContain(`subgraph_reporting_caller_slots_total{caller="${SERVICE}"} 2`);
  expect(scrape).toContain(`subgraph_reporting_caller_refusals_total{caller="${PERSON}"} 1`);
  expect(scrape).not.toContain(CLIENT_NAME);
});
