import type { GraphQLResolveInfo } from 'graphql';
import type { QueryTopArticlesArgs } from '../__generated__/resolvers-types';
import type { Context } from '../../operation/context';
import type { CallerRanking } from '../../reporting/reads/callerReads';
import { toTopArticlesRequest, validateTopArticles } from '../../reporting/analytics/topArticles';
import { rejectInvalid } from '../errors';
import type { ArticleRankingParent } from '../parents/mappers';
import { hintDashboardAnswer } from '../responseCache/cacheHints';

/** `topArticles`: the first rows of its table the caller may see (its read path), with the table's age for the cache hint. */
export async function resolveTopArticles(
  args: Partial<QueryTopArticlesArgs>,
  context: Pick<Context, 'reads' | 'analyticsDeadline' | 'cacheTtls' | 'now' | 'recordAsk'>,
  info: GraphQLResolveInfo,
): Promise<ArticleRankingParent[]> {
  const request = toTopArticlesRequest(args);
  rejectInvalid(validateTopArticles(request));
  // Sites and scopes: FORBIDDEN here, before any table ask (not an ask refused).
  const read = context.reads.ranking(request);
  let ranking: CallerRanking;
  try {
    ranking = await read.read(context.analyticsDeadline);
  } catch (error) {
    context.recordAsk('refused');
    throw error;
  }
  context.recordAsk(ranking.outcome);
  // The caller's window: "the last day" keeps moving, so it gets the short TTL; a stale table gets 0.
  hintDashboardAnswer(info, context.cacheTtls, request.window, ranking.fetchedAt, context.now, context.reads.cacheScope);
  return rankingParents(ranking);
}

/** The ranking's rows as `ArticleRanking` parents, each with its table's window and age (a subscription's too). */
export function rankingParents({ rows, from, to, fetchedAt }: CallerRanking): ArticleRankingParent[] {
  return rows.map((row) => ({ ...row, from, to, fetchedAt }));
}
