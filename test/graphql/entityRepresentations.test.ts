/**
 * `_entities` representations whose key field has the wrong type (a router
 * bug or a hostile caller) are the caller's error: BAD_USER_INPUT at that
 * entity's path, while the other entities of the batch still resolve.
 */
import type { AddressInfo } from 'node:net';
import type { BuiltServer } from '../../src/web/server';
import { DEFAULT_CACHE_TTLS, fakeReporting, fakeRecommender, silentLogger } from '../support/subgraph';
import { testConfig } from '../support/config';
import { buildTestServer } from '../support/services';

let server: BuiltServer;
let graphqlUrl: string;

beforeAll(async () => {
  server = buildTestServer(testConfig({ production: true, renderMaxConcurrency: 2, cache: DEFAULT_CACHE_TTLS }), {
    recommender: fakeRecommender(),
    dashboard: fakeReporting(),
    logger: silentLogger,
  });
  await server.start();
  await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
  graphqlUrl = `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}/graphql`;
});
afterAll(() => server.stop());

interface EntitiesResponse {
  data?: { _entities: Array<{ url?: string; clientId?: string } | null> };
  errors?: Array<{ message: string; path?: Array<string | number>; extensions?: { code?: string } }>;
}

async function resolveEntities(representations: unknown[]): Promise<EntitiesResponse> {
  const response = await fetch(graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Article { url } ... on Reader { clientId } } }',
      variables: { r: representations },
    }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as EntitiesResponse;
}

describe.each([
  { typename: 'Article', key: 'url', good: 'https://news.example/a' },
  { typename: 'Reader', key: 'clientId', good: 'reader-1' },
])('a $typename representation', ({ typename, key, good }) => {
  it.each([
    { kind: 'an object', value: { nested: 'x' }, named: 'an object' },
    { kind: 'an array', value: ['x'], named: 'an array' },
    { kind: 'a number', value: 42, named: 'a number' },
    { kind: 'null', value: null, named: 'null' },
  ])(`whose ${key} is $kind is BAD_USER_INPUT at its path; the others resolve`, async ({ value, named }) => {
    const body = await resolveEntities([
      { __typename: typename, [key]: good },
      { __typename: typename, [key]: value },
      { __typename: typename, [key]: `${good}-2` },
    ]);
    expect(body.data?._entities).toEqual([{ [key]: good }, null, { [key]: `${good}-2` }]);
    expect(body.errors).toEqual([
      {
        message: `Invalid argument representations[].${key}: the ${typename} key must be a string, got ${named}`,
        path: ['_entities', 1],
        locations: [{ line: 1, column: 24 }],
        extensions: {
          code: 'BAD_USER_INPUT',
          invalidArgs: [{ path: `representations[].${key}`, message: `the ${typename} key must be a string, got ${named}` }],
        },
      },
    ]);
  });
});
