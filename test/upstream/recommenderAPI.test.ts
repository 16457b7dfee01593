import type { Agent } from 'undici';
import { findRenderShapeProblem, RecommenderAPI } from '../../src/upstream/datasources/recommenderAPI';
import type { RecommendationWire } from '../../src/kernel/wire';
import { formatError } from '../../src/graphql/errors';
import { createAgent } from '../../src/upstream/transport/agent';
import { retryingClient as createHttpClient } from '../support/httpPath';
import { sendJson, useFakeUpstream } from '../support/fakeUpstream';
import { rejection } from '../support/rejection';
import { UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';

const ITEM: RecommendationWire = {
  url: 'https://news.example/politics/a',
  title: 'A',
  img: 'https://news.example/a.jpg',
  authors: ['Ann'],
  sections: ['Politics'],
  publishTime: '2026-11-20 08:15:00',
};

const upstream = useFakeUpstream();
let agent: Agent;
let recommender: RecommenderAPI;

beforeEach(() => {
  upstream.handle((_request, response) => sendJson(response, 200, { type: 'RecommenderExperienceResponse', recommendation: [ITEM] }));
  agent = createAgent({ connections: UPSTREAM_PATH_DEFAULTS.connectionsPerOrigin });
  recommender = new RecommenderAPI({
    baseUrl: upstream.url,
    http: createHttpClient({ dispatcher: agent, timeoutMs: 2_000 }),
    now: () => FETCHED_AT,
  });
});

afterEach(async () => {
  await agent.destroy();
});

const FETCHED_AT = Date.UTC(2026, 10, 20, 12);

describe('RecommenderAPI.render', () => {
  test('sends GET render.json with the snake_case parameters and no credential', async () => {
    const items = await recommender.render({ id: 'IL_x', canonicalUrl: 'https://news.example/a?utm=1&b=2', clientId: 'reader 7' });

    expect(items).toEqual({ value: [ITEM], fetchedAt: FETCHED_AT });
    expect(upstream.requests).toHaveLength(1);
    const [request] = upstream.requests;
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/recommenderexperience/render.json');
    expect(Object.fromEntries(request.query)).toEqual({
      id: 'IL_x',
      canonical_url: 'https://news.example/a?utm=1&b=2',
      client_id: 'reader 7',
    });
    expect(request.headers.authorization).toBeUndefined();
  });

  test('sends only the parameters that are present', async () => {
    await recommender.render({ id: 'IL_y', domain: 'news.example' });

    expect(Object.fromEntries(upstream.requests[0].query)).toEqual({ id: 'IL_y', domain: 'news.example' });
  });

  test('tolerates extra fields and a missing img', async () => {
    const { img: _img, ...withoutImg } = ITEM;
    upstream.handle((_request, response) =>
      sendJson(response, 200, { type: 'RecommenderExperienceResponse', recommendation: [{ ...withoutImg, score: 0.9 }], took: 3 }),
    );

    await expect(recommender.render({ id: 'IL_x', domain: 'news.example' })).resolves.toEqual({
      value: [{ ...withoutImg, score: 0.9 }],
      fetchedAt: FETCHED_AT,
    });
  });

  test('404 is NOT_FOUND with the upstream message', async () => {
    upstream.handle((_request, response) => sendJson(response, 404, { msg: 'Experience not found' }));

    const error = await rejection(recommender.render({ id: 'IL_missing', domain: 'news.example' }));

    expect(error).toMatchObject({ service: 'recommender', kind: 'http', status: 404, upstreamMessage: 'Experience not found' });
    const shown = formatError({ message: error.message }, error, { production: true });
    expect(shown.extensions).toMatchObject({ code: 'NOT_FOUND', upstream: { service: 'recommender', status: 404 } });
    expect(upstream.requests).toHaveLength(1);
  });

  test.each<[string, unknown, string]>([
    ['not an object', [ITEM], 'expected an object'],
    ['wrong type', { type: 'Other', recommendation: [ITEM] }, 'type is not "RecommenderExperienceResponse"'],
    ['recommendation missing', { type: 'RecommenderExperienceResponse' }, 'recommendation is not an array'],
    [
      'an item without title',
      { type: 'RecommenderExperienceResponse', recommendation: [ITEM, { ...ITEM, title: 5 }] },
      'recommendation[1]',
    ],
    ['authors not strings', { type: 'RecommenderExperienceResponse', recommendation: [{ ...ITEM, authors: [1] }] }, 'recommendation[0]'],
  ])('a malformed answer (%s) is UPSTREAM_BAD_RESPONSE', async (_label, body, reason) => {
    upstream.handle((_request, response) => sendJson(response, 200, body));

    const error = await rejection(recommender.render({ id: 'IL_x', domain: 'news.example' }));

    expect(error.kind).toBe('bad_response');
    expect(error.reason).toContain(reason);
    expect(formatError({ message: error.message }, error, { production: true }).extensions?.code).toBe('UPSTREAM_BAD_RESPONSE');
  });
});

describe('findRenderShapeProblem', () => {
  test('accepts an empty list and a null img', () => {
    expect(findRenderShapeProblem({ type: 'RecommenderExperienceResponse', recommendation: [] })).toBeUndefined();
    expect(findRenderShapeProblem({ type: 'RecommenderExperienceResponse', recommendation: [{ ...ITEM, img: null }] })).toBeUndefined();
  });

  test('refuses an img of the wrong type', () => {
    expect(findRenderShapeProblem({ type: 'RecommenderExperienceResponse', recommendation: [{ ...ITEM, img: 3 }] })).toContain(
      'recommendation[0]',
    );
  });
});
