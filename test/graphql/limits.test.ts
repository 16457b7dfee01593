import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { parse } from 'graphql';
import { DEFAULT_LIMITS } from '../../src/config';
import { createDocumentCache, estimateDocumentBytes, DOCUMENT_BYTES_PER_CHARACTER } from '../../src/graphql/limits/documentCache';
import { loadPersistedManifest, sha256 } from '../../src/graphql/limits/persistedManifest';
import { AllowanceExceeded, UpstreamAllowance } from '../../src/operation/upstreamAllowance';
import { createRecommendationsLoader } from '../../src/operation/loaders/recommendations';
import type { BuiltServer } from '../../src/web/server';
import { postGraphQL } from '../support/federationGateway';
import { errorCodes, execute, fakeRecommender, startTestServer } from '../support/subgraph';

const FRONT = 'query Front { recommendations(experienceId: "IL_a", domain: "d.example") { url } }';

describe('UpstreamAllowance', () => {
  it('grants exactly `limit` calls, then refuses and counts the refusals', () => {
    const allowance = new UpstreamAllowance(2);
    expect([allowance.tryTake(), allowance.tryTake(), allowance.tryTake(), allowance.tryTake()]).toEqual([true, true, false, false]);
    expect([allowance.calls, allowance.refusedCalls]).toEqual([2, 2]);
    const exceeded = allowance.exceededError();
    // Its code, UPSTREAM_BUDGET_EXCEEDED, is graphql/'s to give (asserted through the operation below).
    expect(exceeded).toBeInstanceOf(AllowanceExceeded);
    expect(exceeded.limit).toBe(2);
    expect(allowance.exceededError()).toBe(exceeded);
  });

  it('refuses a limit that is not a non-negative integer', () => {
    expect(() => new UpstreamAllowance(-1)).toThrow('UpstreamAllowance: limit must be an integer >= 0, got -1');
  });
});

describe('the recommendations loader under a allowance', () => {
  it('calls render for the first keys of a batch and fails the rest with UPSTREAM_BUDGET_EXCEEDED', async () => {
    const recommender = fakeRecommender();
    const loader = createRecommendationsLoader(recommender, { maxConcurrency: 4, allowance: new UpstreamAllowance(2) });
    const settled = await Promise.allSettled(['a', 'b', 'c', 'a'].map((id) => loader.load({ id: `IL_${id}` })));
    expect(recommender.calls).toEqual([{ id: 'IL_a' }, { id: 'IL_b' }]);
    expect(settled.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  });
});

describe('the allowance in an operation', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;

  afterEach(async () => {
    await server?.stop();
  });

  it('counts dashboard queries too: the third of three aliased dashboards fails at its own path', async () => {
    server = await startTestServer({ config: { limits: { ...DEFAULT_LIMITS, maxUpstreamCallsPerOperation: 2 } } });
    const dashboard = (alias: string, days: number) =>
      `${alias}: dashboard(query: { dates: { last: { number: ${days}, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL] }) { total }`;
    const result = await execute(server, `{ ${dashboard('a', 1)} ${dashboard('b', 2)} ${dashboard('c', 3)} }`);
    expect(server.reporting.bodies).toHaveLength(2);
    expect(errorCodes(result)).toEqual(['UPSTREAM_BUDGET_EXCEEDED']);
    expect(result.errors?.[0].message).toBe(
      'This operation needs more than 2 upstream calls (MAX_UPSTREAM_CALLS_PER_OPERATION); split it into smaller operations',
    );
    expect(result.errors?.[0].path).toEqual(['c']);
    expect(result.data).toEqual({ a: [{ total: 100 }], b: [{ total: 100 }], c: null });
  });

  it('lets identical aliased dashboards share one call and one unit of the allowance', async () => {
    server = await startTestServer({ config: { limits: { ...DEFAULT_LIMITS, maxUpstreamCallsPerOperation: 1 } } });
    const today = 'dashboard(query: { dates: { last: { number: 1, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL] }) { total }';
    const result = await execute(server, `{ a: ${today} b: ${today} }`);
    expect(result.errors).toBeUndefined();
    expect(server.reporting.bodies).toHaveLength(1);
    expect(result.data).toEqual({ a: [{ total: 100 }], b: [{ total: 100 }] });
  });
});

describe('schema hints', () => {
  let server: BuiltServer;

  afterEach(async () => {
    await server?.stop();
  });

  it('suggests field names in development', async () => {
    server = await startTestServer();
    const result = await execute(server, '{ recommendation(experienceId: "IL_a") { url } }');
    expect(result.errors?.[0].message).toMatch(/Did you mean "recommendations"\?/);
  });

  it('gives none in production, and keeps the code', async () => {
    server = await startTestServer({ config: { production: true } });
    const result = await execute(server, '{ recommendation(experienceId: "IL_a") { url } }');
    expect(result.errors?.[0].message).toBe('Cannot query field "recommendation" on type "Query".');
    expect(errorCodes(result)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });
});

describe('the document cache', () => {
  it('sizes a document by its text length times the measured heap factor', () => {
    expect(estimateDocumentBytes(parse(FRONT))).toBe(FRONT.length * DOCUMENT_BYTES_PER_CHARACTER);
  });

  /** Stores a document the way Apollo does when a client sends it `times` times: a miss, parsed, then `set`. */
  const sendTimes = async (cache: ReturnType<typeof createDocumentCache>, key: string, times: number) => {
    for (let time = 0; time < times; time++) if ((await cache.get(key)) === undefined) await cache.set(key, parse(FRONT));
  };

  it('evicts the least recently used documents beyond its byte limit', async () => {
    const cache = createDocumentCache(3 * FRONT.length * DOCUMENT_BYTES_PER_CHARACTER);
    for (let index = 0; index < 10; index++) await sendTimes(cache, `doc-${index}`, 2);
    expect(cache.keys().sort()).toEqual(['doc-7', 'doc-8', 'doc-9']);
  });

  it('keeps a document from its second sighting, so a flood of one-off documents evicts none that clients repeat', async () => {
    const cache = createDocumentCache(3 * FRONT.length * DOCUMENT_BYTES_PER_CHARACTER);
    for (const hot of ['front', 'section']) await sendTimes(cache, hot, 2);
    for (let index = 0; index < 1_000; index++) await sendTimes(cache, `one-off-${index}`, 1);
    expect(cache.keys().sort()).toEqual(['front', 'section']);
    // A one-off sent again soon after is a repeat after all: it is kept from then on.
    await sendTimes(cache, 'one-off-999', 1);
    expect(await cache.get('one-off-999')).toBeDefined();
  });
});

describe('persisted operations', () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'persisted-'));
  const writeManifest = (name: string, content: unknown) => {
    const file = path.join(directory, name);
    writeFileSync(file, JSON.stringify(content));
    return file;
  };
  const frontId = sha256(FRONT);
  const apolloManifest = writeManifest('apollo.json', {
    format: 'apollo-persisted-query-manifest',
    version: 1,
    operations: [{ id: frontId, name: 'Front', type: 'query', body: FRONT }],
  });

  it('reads Apollo persisted query lists and codegen persisted-documents files alike', () => {
    const codegen = writeManifest('codegen.json', { abc123: FRONT });
    expect([...loadPersistedManifest(apolloManifest).byId]).toEqual([[frontId, FRONT]]);
    expect([...loadPersistedManifest(codegen).byId]).toEqual([['abc123', FRONT]]);
    expect(loadPersistedManifest(codegen).bodyHashes.has(frontId)).toBe(true);
  });

  it('refuses an unusable manifest naming the file and the problem', () => {
    expect(() => loadPersistedManifest(writeManifest('bad.json', { a: 3 }))).toThrow(
      /bad\.json: entry "a" is not a GraphQL document string/,
    );
    expect(() => loadPersistedManifest(writeManifest('empty.json', {}))).toThrow(/empty\.json lists no operations/);
    expect(() => loadPersistedManifest(path.join(directory, 'missing.json'))).toThrow(/missing\.json cannot be read as JSON/);
  });

  describe('PERSISTED_QUERIES_ONLY over HTTP', () => {
    let server: Awaited<ReturnType<typeof startTestServer>>;
    let url: string;

    beforeAll(async () => {
      server = await startTestServer({
        config: { limits: { ...DEFAULT_LIMITS, persistedQueriesOnly: true } },
        persistedManifest: loadPersistedManifest(apolloManifest),
      });
      await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}/graphql`;
    });

    afterAll(async () => {
      await server?.stop();
    });

    const post = async (body: unknown) => {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return {
        status: response.status,
        body: (await response.json()) as { data?: unknown; errors?: { extensions?: { code?: string } }[] },
      };
    };

    it('runs an operation named by its manifest id', async () => {
      const result = await post({ extensions: { persistedQuery: { version: 1, sha256Hash: frontId } } });
      expect(result.status).toBe(200);
      expect(result.body.errors).toBeUndefined();
      expect(server.recommender.calls).toContainEqual({ id: 'IL_a', domain: 'd.example' });
    });

    it('runs the exact text of a listed operation', async () => {
      const result = await postGraphQL(url, FRONT);
      expect(result.errors).toBeUndefined();
    });

    it('refuses an unknown id with PERSISTED_QUERY_NOT_IN_LIST', async () => {
      const result = await post({ extensions: { persistedQuery: { version: 1, sha256Hash: 'f'.repeat(64) } } });
      expect(result.status).toBe(400);
      expect(result.body.errors?.map((error) => error.extensions?.code)).toEqual(['PERSISTED_QUERY_NOT_IN_LIST']);
    });

    it('refuses free-form text with PERSISTED_QUERY_NOT_IN_LIST, before any upstream call', async () => {
      const calls = server.recommender.calls.length;
      const result = await post({ query: '{ recommendations(experienceId: "IL_z", domain: "d.example") { url } }' });
      expect(result.status).toBe(400);
      expect(result.body.errors?.map((error) => error.extensions?.code)).toEqual(['PERSISTED_QUERY_NOT_IN_LIST']);
      expect(server.recommender.calls).toHaveLength(calls);
    });

    it('asks for an id when the request has neither', async () => {
      const result = await post({ variables: {} });
      expect(result.status).toBe(400);
      expect(result.body.errors?.map((error) => error.extensions?.code)).toEqual(['PERSISTED_QUERY_ID_REQUIRED']);
    });
  });
});
