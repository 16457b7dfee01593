export { renderRecommendations } from './render';
export type { RenderResponse, RecommendationItem } from './response';
export type { RenderParams } from './params';
