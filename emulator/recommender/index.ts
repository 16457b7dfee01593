export { renderRecommendations } from './render';
export type { RenderResponse, RecommendationItem } from './response';
export { formatWireTime } from './response';
export { parseRenderParams, type RenderParams } from './params';
export { BALANCED_WEIGHTS } from './profiles';
