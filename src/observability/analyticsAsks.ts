/** The operation log's summary of an operation's analytics asks: how many were answered each way (fresh, table, stale, merged, refused). */
export function analyticsAskFields(outcomes: readonly string[] | undefined): { analyticsAsks?: Record<string, number> } {
  if (outcomes === undefined || outcomes.length === 0) return {};
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) counts[outcome] = (counts[outcome] ?? 0) + 1;
  return { analyticsAsks: counts };
}
