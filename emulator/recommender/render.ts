import { failure, invalidParams, ok, type Outcome } from '../outcome';
import type { EmulatorStore } from '../store';
import { parseRenderParams } from './params';
import { rankArticles } from './rank';
import { toRecommendationItem, type RenderResponse } from './response';

/**
 * `GET /recommenderexperience/render.json` without the HTTP: 400 for bad
 * parameters (all of them named at once), 404 for an unknown experience
 * (checked only once the parameters are valid), else the experience's
 * ranking at `now` (epoch ms).
 */
export function renderRecommendations(store: EmulatorStore, query: URLSearchParams, now: number): Outcome<RenderResponse> {
  const parsed = parseRenderParams(query);
  if (!parsed.ok) return invalidParams(parsed.errors);
  const experience = store.experiences.get(parsed.params.experienceId);
  if (experience === undefined) return failure(404, 'Experience not found');
  const ranked = rankArticles(store, experience, parsed.params, now);
  return ok({
    type: 'RecommenderExperienceResponse',
    recommendation: ranked.map((article) => toRecommendationItem(store.articles[article])),
  });
}
