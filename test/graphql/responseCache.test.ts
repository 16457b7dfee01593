/**
 * The response cache (src/graphql/responseCache/): a repeated public operation is
 * answered without executing it; personalized, failing and uncacheable ones
 * always execute. Upstream calls are counted at the fakes, under the loaders
 * (which only de-duplicate within one operation), so every execution shows.
 */
import type { RecommendationWire, RenderParams } from '../../src/kernel/wire';
import type { BuiltServer } from '../../src/web/server';
import { itemsFor, startTestServer, type FakeRecommender } from '../support/subgraph';

/** A recommender whose answers arrive now, so their cache hints are fresh (the shared fakes' answers are days old). */
function freshRecommender(answer: (params: RenderParams) => RecommendationWire[] = (params) => itemsFor(params)): FakeRecommender {
  const calls: RenderParams[] = [];
  return {
    calls,
    render: async (params) => {
      calls.push(params);
      return { value: answer(params), fetchedAt: Date.now(), cache: 'miss' };
    },
  };
}

const FAILING_EXPERIENCE = 'IL_failing';

const RECOMMENDATIONS = `query Front($experienceId: ID!, $clientId: ID) {
  recommendations(experienceId: $experienceId, domain: "dailyglobe.example", clientId: $clientId) { url title fetchedAt }
}`;
const RELATED = `query ($representations: [_Any!]!, $experienceId: ID!) {
  _entities(representations: $representations) { ... on Article { url related(experienceId: $experienceId) { url } } }
}`;
const REPRESENTATIONS = [1, 2, 3].map((n) => ({ __typename: 'Article', url: `https://dailyglobe.example/story-${n}` }));

interface Sent {
  data: unknown;
  errors: unknown;
  cacheControl: string | undefined;
}

async function send(server: BuiltServer, query: string, variables: Record<string, unknown>): Promise<Sent> {
  const response = await server.apollo.executeOperation({ query, variables }, { contextValue: server.createContext() });
  if (response.body.kind !== 'single') throw new Error('expected a single result');
  const { data, errors } = response.body.singleResult;
  return { data, errors, cacheControl: response.http.headers.get('cache-control') };
}

describe('response cache', () => {
  let recommender: FakeRecommender;
  let server: BuiltServer;

  beforeEach(async () => {
    recommender = freshRecommender((params) => {
      if (params.id === FAILING_EXPERIENCE) throw new Error('recommender down');
      return itemsFor(params);
    });
    server = await startTestServer({ recommender, config: { cache: { renderTtlSeconds: 60, dashboardTtlSeconds: 60 } } });
  });

  afterEach(async () => {
    await server.stop();
  });

  it('answers a repeated public operation without executing it', async () => {
    const first = await send(server, RECOMMENDATIONS, { experienceId: 'IL_front' });
    expect(first.errors).toBeUndefined();
    expect(first.cacheControl).toMatch(/^max-age=(60|59), public$/);
    expect(recommender.calls).toHaveLength(1);

    const second = await send(server, RECOMMENDATIONS, { experienceId: 'IL_front' });
    expect(recommender.calls).toHaveLength(1);
    expect(second.data).toEqual(first.data);
    expect(second.cacheControl).toMatch(/^max-age=\d+, public$/);

    // Other variables are another key.
    await send(server, RECOMMENDATIONS, { experienceId: 'IL_other' });
    expect(recommender.calls).toHaveLength(2);
  });

  it('always executes a personalized (PRIVATE) operation', async () => {
    await send(server, RECOMMENDATIONS, { experienceId: 'IL_front', clientId: 'reader-a' });
    const second = await send(server, RECOMMENDATIONS, { experienceId: 'IL_front', clientId: 'reader-a' });
    expect(second.cacheControl).toMatch(/private$/);
    expect(recommender.calls).toHaveLength(2);
  });

  it('never stores a response with errors', async () => {
    const first = await send(server, RECOMMENDATIONS, { experienceId: FAILING_EXPERIENCE });
    expect(first.errors).toEqual([expect.objectContaining({ path: ['recommendations'] })]);
    await send(server, RECOMMENDATIONS, { experienceId: FAILING_EXPERIENCE });
    expect(recommender.calls).toHaveLength(2);
  });

  it("answers a router's repeated _entities request for the same representations", async () => {
    const first = await send(server, RELATED, { representations: REPRESENTATIONS, experienceId: 'IL_related' });
    expect(first.errors).toBeUndefined();
    expect(recommender.calls).toHaveLength(3);

    const second = await send(server, RELATED, { representations: REPRESENTATIONS, experienceId: 'IL_related' });
    expect(second.data).toEqual(first.data);
    expect(recommender.calls).toHaveLength(3);

    // Another front page (a representation fewer) is another request.
    await send(server, RELATED, { representations: REPRESENTATIONS.slice(1), experienceId: 'IL_related' });
    expect(recommender.calls).toHaveLength(5);
  });
});

describe('response cache in the operation log', () => {
  it('marks an operation the response cache answered, with no upstream calls', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = { debug() {}, warn() {}, error() {}, info: (fields: Record<string, unknown>) => lines.push(fields) };
    const server = await startTestServer({
      recommender: freshRecommender(),
      logger,
      config: { cache: { renderTtlSeconds: 60, dashboardTtlSeconds: 60 } },
    });
    try {
      await send(server, RECOMMENDATIONS, { experienceId: 'IL_front' });
      await send(server, RECOMMENDATIONS, { experienceId: 'IL_front' });
      const operations = lines.filter((line) => line.operationName === 'Front');
      expect(operations).toEqual([
        expect.not.objectContaining({ responseCacheHit: true }),
        expect.objectContaining({ responseCacheHit: true, upstreamCalls: 0, outcome: 'ok' }),
      ]);
      expect(operations[0]).toEqual(expect.objectContaining({ upstreamCalls: 1 }));
    } finally {
      await server.stop();
    }
  });
});

describe('response cache turned off (RESPONSE_CACHE_ENABLED=false)', () => {
  it('executes every repeated operation', async () => {
    const recommender = freshRecommender();
    const server = await startTestServer({
      recommender,
      config: { cache: { renderTtlSeconds: 60, dashboardTtlSeconds: 60 }, responseCacheEnabled: false },
    });
    try {
      await send(server, RECOMMENDATIONS, { experienceId: 'IL_front' });
      const second = await send(server, RECOMMENDATIONS, { experienceId: 'IL_front' });
      expect(second.cacheControl).toMatch(/public$/);
      expect(recommender.calls).toHaveLength(2);
    } finally {
      await server.stop();
    }
  });
});
