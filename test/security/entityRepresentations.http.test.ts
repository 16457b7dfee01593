/**
 * `_entities` representations over real HTTP (issue 34 item 9): a
 * `__typename` that is not an entity of this subgraph (an object type such as
 * `ArticleAnalytics`, or no type at all) is the caller's error,
 * BAD_USER_INPUT naming it at that entity's index, never an internal error;
 * the valid entities of the same batch are still answered, and nothing
 * reaches the upstream for the bad ones.
 */
import type { RunningEmulator } from '../../emulator';
import { readStats, startSmallEmulator, startSubgraph, type RunningSubgraph } from '../support/subgraphHttp';
import { postGraphQL } from './support';

const ENTITIES = `query Entities($representations: [_Any!]!) {
  _entities(representations: $representations) { __typename ... on Article { url } ... on Reader { clientId } }
}`;
const ARTICLE_URL = 'https://dailyglobe.example/world/a-story';

let emulator: RunningEmulator;
let subgraph: RunningSubgraph;

beforeAll(async () => {
  emulator = await startSmallEmulator();
  subgraph = await startSubgraph(emulator);
});

afterAll(async () => {
  await subgraph?.close();
  await emulator?.close();
});

async function upstreamCalls(): Promise<number> {
  const stats = await readStats(emulator);
  return stats.signin.count + stats.dashboard.count + stats.render.count;
}

async function entities(representations: unknown[]) {
  return postGraphQL(subgraph.graphqlUrl, ENTITIES, { variables: { representations } });
}

test.each([
  ['a type that is not an entity', { __typename: 'ArticleAnalytics', url: ARTICLE_URL }, /ArticleAnalytics is not an entity/],
  ['an unknown type', { __typename: 'Spaceship', id: '1' }, /Spaceship is not an entity/],
  ['no __typename', { url: ARTICLE_URL }, /__typename is missing/],
  ['not an object', 'https://dailyglobe.example/', /__typename is missing/],
])('%s: BAD_USER_INPUT naming it, and 0 upstream calls', async (_case, representation, problem) => {
  const before = await upstreamCalls();
  const answer = await entities([representation]);
  expect(answer.status).toBe(200);
  expect(answer.body.data).toEqual({ _entities: [null] });
  expect(answer.body.errors).toHaveLength(1);
  const [error] = answer.body.errors ?? [];
  expect(error.extensions?.code).toBe('BAD_USER_INPUT');
  expect(error.message).toMatch(problem);
  expect(error.path).toEqual(['_entities', 0]);
  expect(await upstreamCalls()).toBe(before);
});

test('in a batch, only the bad representation fails: the entities around it are answered', async () => {
  const answer = await entities([
    { __typename: 'Article', url: ARTICLE_URL },
    { __typename: 'ArticleAnalytics', url: ARTICLE_URL },
    { __typename: 'Reader', clientId: 'reader-1' },
  ]);
  expect(answer.body.data).toEqual({
    _entities: [{ __typename: 'Article', url: ARTICLE_URL }, null, { __typename: 'Reader', clientId: 'reader-1' }],
  });
  expect(answer.body.errors?.map((error) => [error.path, error.extensions?.code])).toEqual([[['_entities', 1], 'BAD_USER_INPUT']]);
  expect(answer.body.errors?.[0].message).toMatch(/representations\[1\]\.__typename: ArticleAnalytics is not an entity/);
});
