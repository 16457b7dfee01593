import type { Article } from '../store';

/** One item of a render.json response, exactly as on the wire. */
export interface RecommendationItem {
  url: string;
  title: string;
  img: string;
  authors: string[];
  sections: string[];
  /** `yyyy-MM-dd HH:mm:ss`, UTC, 24-hour clock. */
  publishTime: string;
}

export interface RenderResponse {
  type: 'RecommenderExperienceResponse';
  recommendation: RecommendationItem[];
}

export function toRecommendationItem(article: Article): RecommendationItem {
  // Copies, so a caller that mutates the response cannot reach into the store.
  return {
    url: article.url,
    title: article.title,
    img: article.img,
    authors: [...article.authors],
    sections: [...article.sections],
    publishTime: formatWireTime(article.publishTime),
  };
}

/** Epoch ms → `yyyy-MM-dd HH:mm:ss` in UTC. */
function formatWireTime(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 19).replace('T', ' ');
}
