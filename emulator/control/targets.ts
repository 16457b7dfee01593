/** The upstream endpoints that stats count and faults can hit. */
export const TARGETS = ['signin', 'dashboard', 'render'] as const;
export type Target = (typeof TARGETS)[number];
