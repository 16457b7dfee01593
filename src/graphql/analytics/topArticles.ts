import type { GraphQLResolveInfo } from 'graphql';
import type { QueryTopArticlesArgs } from '../__generated__/resolvers-types';
import type { Context } from '../../operation/context';
import type { Ranking } from '../../reporting/tables/analyticsTables';
import { toTopArticlesRequest, topArticlesSpec, validateTopArticles, type TopArticlesRequest } from '../../reporting/analytics/topArticles';
import { rankingScope } from '../../reporting/sites/callerSites';
import { rejectInvalid } from '../errors';
import type { ArticleRankingParent } from '../resolvers/mappers';
import { hintDashboardAnswer } from '../resolvers/cacheHints';

/** `topArticles`: the first rows of its table, with the table's age for the cache hint. */
export async function resolveTopArticles(
  args: Partial<QueryTopArticlesArgs>,
  context: Pick<Context, 'analyticsTables' | 'analyticsDeadline' | 'cacheTtls' | 'now' | 'recordAsk' | 'caller'>,
  info: GraphQLResolveInfo,
): Promise<ArticleRankingParent[]> {
  const asked = toTopArticlesRequest(args);
  rejectInvalid(validateTopArticles(asked));
  // Sites per caller: the table of the caller's domain, or the shared one with only the caller's rows kept.
  const { domain, keep } = rankingScope(asked.domain, context.caller.sites);
  const request: TopArticlesRequest = { ...asked, ...(domain === undefined ? {} : { domain }) };
  let ranking: Ranking;
  try {
    ranking = await context.analyticsTables.ranking(
      topArticlesSpec(request),
      keep === undefined ? request.limit : Infinity,
      context.analyticsDeadline,
    );
  } catch (error) {
    context.recordAsk('refused');
    throw error;
  }
  context.recordAsk(ranking.outcome);
  // The caller's window: "the last day" keeps moving, so it gets the short TTL; a stale table gets 0.
  hintDashboardAnswer(info, context.cacheTtls, request.window, ranking.fetchedAt, context.now);
  const { from, to, fetchedAt } = ranking;
  const rows = keep === undefined ? ranking.rows : ranking.rows.filter((row) => keep(row.url)).slice(0, request.limit);
  return rows.map((row, index) => ({ ...row, rank: index + 1, from, to, fetchedAt }));
}
