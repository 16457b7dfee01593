import type { HttpClient } from '../transport/httpClient';
import { isRecord, isStringArray } from '../transport/typeGuards';
import { buildUrl } from '../transport/url';
import { UpstreamError } from '../../kernel/failures/upstreamError';
import type { Fetched } from '../../kernel/fetched';
import type { RecommendationWire, RenderParams, RenderResponseWire } from '../../kernel/wire';

export const RENDER_PATH = '/recommenderexperience/render.json';

export interface RecommenderAPIOptions {
  baseUrl: string;
  http: HttpClient;
  /** Clock for `fetchedAt`. */
  now?: () => number;
}

/** The recommender's render.json. The documented request carries no credential, so neither do we. */
export class RecommenderAPI {
  private readonly baseUrl: string;
  private readonly http: HttpClient;
  private readonly now: () => number;

  constructor(options: RecommenderAPIOptions) {
    // Fail at start-up, not on the first request, when the URL is unusable.
    buildUrl(options.baseUrl, RENDER_PATH);
    this.baseUrl = options.baseUrl;
    this.http = options.http;
    this.now = options.now ?? Date.now;
  }

  async render(params: RenderParams): Promise<Fetched<RecommendationWire[]>> {
    const url = buildUrl(this.baseUrl, RENDER_PATH, {
      id: params.id,
      canonical_url: params.canonicalUrl,
      domain: params.domain,
      client_id: params.clientId,
    });
    const json = await this.http.requestJson({ service: 'recommender', endpoint: RENDER_PATH, url, method: 'GET' });
    assertRenderResponse(json);
    return { value: json.recommendation, fetchedAt: this.now() };
  }
}

function assertRenderResponse(json: unknown): asserts json is RenderResponseWire {
  const problem = findRenderShapeProblem(json);
  if (problem !== undefined) {
    throw new UpstreamError({ service: 'recommender', endpoint: RENDER_PATH, kind: 'bad_response', reason: problem });
  }
}

/**
 * Names the first field the resolvers could not use; extra fields are fine.
 * A missing or null `img` is let through (the GraphQL field is nullable): an
 * article without a picture should not fail the whole list.
 */
export function findRenderShapeProblem(json: unknown): string | undefined {
  if (!isRecord(json)) return 'expected an object';
  if (json.type !== 'RecommenderExperienceResponse') return 'type is not "RecommenderExperienceResponse"';
  if (!Array.isArray(json.recommendation)) return 'recommendation is not an array';
  const badIndex = json.recommendation.findIndex((item) => !isRecommendation(item));
  return badIndex >= 0
    ? `recommendation[${badIndex}] lacks url, title or publishTime strings, or authors and sections lists of strings`
    : undefined;
}

function isRecommendation(item: unknown): item is RecommendationWire {
  return (
    isRecord(item) &&
    typeof item.url === 'string' &&
    typeof item.title === 'string' &&
    typeof item.publishTime === 'string' &&
    (item.img === undefined || item.img === null || typeof item.img === 'string') &&
    isStringArray(item.authors) &&
    isStringArray(item.sections)
  );
}
