/**
 * The per-operation limits over real HTTP against the emulator. The abusive
 * operations of issue 10 (396, 500 and 10,000 render.json calls before) are
 * refused with their codes; the emulator's own stats count the calls made.
 */
import type { RunningEmulator } from '../../emulator';
import { postGraphQL } from '../support/federationGateway';
import { readStats, resetStats, startSmallEmulator, startSubgraph, type RunningSubgraph } from '../support/subgraphHttp';

let emulator: RunningEmulator;
let subgraph: RunningSubgraph;

beforeAll(async () => {
  emulator = await startSmallEmulator({ rates: { renderPerMinute: 1_000_000 } });
  subgraph = await startSubgraph(emulator, { timeoutMs: 5_000, config: { production: true, renderMaxConcurrency: 16 } });
});

afterAll(async () => {
  await subgraph?.close();
  await emulator?.close();
});

beforeEach(async () => {
  await resetStats(emulator);
});

function experienceId(profile = 'similar'): string {
  const found = emulator.demo.experiences.find((candidate) => candidate.rankingProfile === profile);
  if (!found) throw new Error(`no seeded ${profile} experience`);
  return found.id;
}

/** `recommendations { article { related { … } } }` with `levels` levels of `related`. */
function nested(levels: number): string {
  let selection = 'url';
  for (let level = 0; level < levels; level++) selection = `url article { related(experienceId: $id) { ${selection} } }`;
  return `query Nested($id: ID!) { recommendations(experienceId: $id, domain: "dailyglobe.example") { ${selection} } }`;
}

const codesOf = (result: { errors?: { extensions?: Record<string, unknown> }[] }) => [
  ...new Set((result.errors ?? []).map((error) => error.extensions?.code)),
];

describe('static limits: refused before any upstream call', () => {
  it('refuses related nested 4 deep with MAX_DEPTH_LIMIT', async () => {
    const result = await postGraphQL(subgraph.graphqlUrl, nested(4), { id: experienceId() });
    expect(result.status).toBe(400);
    expect(codesOf(result)).toEqual(['MAX_DEPTH_LIMIT']);
    expect(result.errors?.[0].message).toMatch(/depth limit of 7 exceeded/);
    expect((await readStats(emulator)).render.count).toBe(0);
  });

  const aliased = (count: number) =>
    `query Many($id: ID!) { ${Array.from(
      { length: count },
      (_, index) => `r${index}: recommendations(experienceId: $id, domain: "dailyglobe.example", clientId: "reader-${index}") { url }`,
    ).join(' ')} }`;

  it('refuses 500 aliases of recommendations: the document is over the token limit before aliases are counted', async () => {
    const result = await postGraphQL(subgraph.graphqlUrl, aliased(500), { id: experienceId() });
    expect(result.status).toBe(400);
    expect(codesOf(result)).toEqual(['MAX_TOKENS_LIMIT']);
    expect((await readStats(emulator)).render.count).toBe(0);
  });

  it('refuses 16 aliases (within the token limit) with MAX_ALIASES_LIMIT', async () => {
    const result = await postGraphQL(subgraph.graphqlUrl, aliased(16), { id: experienceId() });
    expect(result.status).toBe(400);
    expect(codesOf(result)).toEqual(['MAX_ALIASES_LIMIT']);
    expect(result.errors?.[0].message).toMatch(/Aliases limit of 15 exceeded/);
    expect((await readStats(emulator)).render.count).toBe(0);
  });

  it('refuses a document over the token limit with MAX_TOKENS_LIMIT', async () => {
    const values = Array.from({ length: 1_100 }, (_, index) => `"v${index}"`).join(', ');
    const query = `query Big { dashboard(query: { dates: { last: { number: 7, unit: DAY } }, metrics: [PAGE_VIEWS_TOTAL], filters: [{ dimension: SECTION, operator: EQ, values: [${values}] }] }) { total } }`;
    const result = await postGraphQL(subgraph.graphqlUrl, query);
    expect(result.status).toBe(400);
    expect(codesOf(result)).toEqual(['MAX_TOKENS_LIMIT']);
    expect((await readStats(emulator)).dashboard.count).toBe(0);
  });
});

describe('the upstream-call budget (MAX_UPSTREAM_CALLS_PER_OPERATION, default 50)', () => {
  it('makes 50 calls for a 10,000-representation _entities batch and fails the rest at their own paths', async () => {
    const representations = Array.from({ length: 10_000 }, (_, index) => ({
      __typename: 'Article',
      url: `https://dailyglobe.example/world/2026/11/01/article-${index}`,
    }));
    const query = `query ($reps: [_Any!]!, $id: ID!) { _entities(representations: $reps) { ... on Article { url related(experienceId: $id) { url } } } }`;
    // Under jest, source-map-support maps the stack of each of the 9,950 path errors: seconds no production process spends.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    const result = await postGraphQL<{ _entities: { url: string; related: unknown[] | null }[] }>(subgraph.graphqlUrl, query, {
      reps: representations,
      // mostRead ranks cheaply: the emulator shares this process, and its work is not what this test measures.
      id: experienceId('mostRead'),
    }).finally(() => {
      Error.stackTraceLimit = stackTraceLimit;
    });

    expect((await readStats(emulator)).render.count).toBe(50);
    expect(codesOf(result)).toEqual(['UPSTREAM_BUDGET_EXCEEDED']);
    expect(result.errors).toHaveLength(9_950);
    expect(result.errors?.[0].path).toEqual(['_entities', 50, 'related']);
    const entities = result.data?._entities ?? [];
    expect(entities).toHaveLength(10_000);
    expect(entities.slice(0, 50).every((entity) => Array.isArray(entity.related))).toBe(true);
    expect(entities.slice(50).every((entity) => entity.related === null && entity.url.startsWith('https://'))).toBe(true);
  });

  it('leaves ordinary operations alone: related nested 2 deep makes every call it needs', async () => {
    const result = await postGraphQL(subgraph.graphqlUrl, nested(2), { id: experienceId() });
    expect(result.errors).toBeUndefined();
    const calls = (await readStats(emulator)).render.count;
    expect(calls).toBeGreaterThan(1);
    expect(calls).toBeLessThanOrEqual(50);
  });
});
