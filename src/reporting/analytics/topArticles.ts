import type { DateWindowInput, QueryTopArticlesArgs } from '../../graphql/__generated__/resolvers-types';
import type { GraphQLResolveInfo } from 'graphql';
import type { MetricName } from '../../upstream/datasources/wire';
import { Metric, TimeUnit } from '../../graphql/enums';
import { rejectInvalid, type InvalidArgument } from '../../graphql/errors';
import type { ArticleRankingParent } from '../../graphql/resolvers/mappers';
import { hintDashboardAnswer } from '../../graphql/resolvers/cacheHints';
import type { Context } from '../../operation/context';
import type { Ranking } from '../tables/analyticsTables';
import { tableSpec, type TableSpec } from '../tables/tableSpec';
import { rankingScope } from '../sites/callerSites';
import { validateWindow } from './window';

const MAX_TOP_ARTICLES = 100;

/** The schema's defaults, also used when an argument is given as an explicit null. */
const TOP_ARTICLES_DEFAULTS = {
  window: { last: { number: 1, unit: TimeUnit.DAY } } satisfies DateWindowInput,
  metric: Metric.PAGE_VIEWS_TOTAL,
  limit: 10,
};

/** `topArticles` arguments with the defaults filled in. */
export interface TopArticlesRequest {
  window: DateWindowInput;
  metric: MetricName;
  domain?: string;
  section?: string;
  limit: number;
}

export function toTopArticlesRequest(args: Partial<QueryTopArticlesArgs>): TopArticlesRequest {
  const request: TopArticlesRequest = {
    window: args.window ?? TOP_ARTICLES_DEFAULTS.window,
    metric: args.metric ?? TOP_ARTICLES_DEFAULTS.metric,
    limit: args.limit ?? TOP_ARTICLES_DEFAULTS.limit,
  };
  if (args.domain != null) request.domain = args.domain;
  if (args.section != null) request.section = args.section;
  return request;
}

/** Every problem at once, before any upstream call. NEW_ARTICLES is fine: grouping by url is not a traffic dimension. */
export function validateTopArticles(request: TopArticlesRequest): InvalidArgument[] {
  const problems = validateWindow(request.window, 'window');
  if (!Number.isInteger(request.limit) || request.limit < 1 || request.limit > MAX_TOP_ARTICLES) {
    problems.push({ path: 'limit', message: `must be from 1 to ${MAX_TOP_ARTICLES} (got ${request.limit})` });
  }
  if (request.domain !== undefined && request.domain.trim() === '') problems.push({ path: 'domain', message: 'must not be empty' });
  if (request.section !== undefined && request.section.trim() === '') problems.push({ path: 'section', message: 'must not be empty' });
  return problems;
}

/** The table a ranking reads: its window, its filters, ranked by its metric. */
export function topArticlesSpec(request: TopArticlesRequest): TableSpec {
  return tableSpec(
    request.window,
    {
      ...(request.domain === undefined ? {} : { domain: request.domain }),
      ...(request.section === undefined ? {} : { section: request.section }),
    },
    request.metric,
  );
}

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
