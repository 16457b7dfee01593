import type { GraphQLResolveInfo } from 'graphql';
import type { QueryTopArticlesArgs } from '../__generated__/resolvers-types';
import type { Context } from '../../operation/context';
import type { Ranking } from '../../reporting/tables/analyticsTables';
import { toTopArticlesRequest, topArticlesSpec, validateTopArticles } from '../../reporting/analytics/topArticles';
import { rejectInvalid } from '../errors';
import type { ArticleRankingParent } from '../resolvers/mappers';
import { hintDashboardAnswer } from '../resolvers/cacheHints';

/** `topArticles`: the first rows of its table, with the table's age for the cache hint. */
export async function resolveTopArticles(
  args: Partial<QueryTopArticlesArgs>,
  context: Pick<Context, 'analyticsTables' | 'analyticsDeadline' | 'cacheTtls' | 'now' | 'recordAsk'>,
  info: GraphQLResolveInfo,
): Promise<ArticleRankingParent[]> {
  const request = toTopArticlesRequest(args);
  rejectInvalid(validateTopArticles(request));
  let ranking: Ranking;
  try {
    ranking = await context.analyticsTables.ranking(topArticlesSpec(request), request.limit, context.analyticsDeadline);
  } catch (error) {
    context.recordAsk('refused');
    throw error;
  }
  context.recordAsk(ranking.outcome);
  // The caller's window: "the last day" keeps moving, so it gets the short TTL; a stale table gets 0.
  hintDashboardAnswer(info, context.cacheTtls, request.window, ranking.fetchedAt, context.now);
  const { from, to, fetchedAt } = ranking;
  return ranking.rows.map((row, index) => ({ ...row, rank: index + 1, from, to, fetchedAt }));
}
