import type { DateWindowInput, QueryTopArticlesArgs } from '../../graphql/__generated__/resolvers-types';
import type { Fetched } from '../../upstream/datasources/fetched';
import type { DashboardMetricResultWire, DashboardQueryBody, MetricName } from '../../upstream/datasources/wire';
import { Dimension, FilterOperator, Granularity, Metric, SortDirection, TimeUnit } from '../../graphql/enums';
import type { InvalidArgument } from '../../graphql/errors';
import type { ArticleRankingParent } from '../../graphql/resolvers/mappers';
import { validateWindow, type ResolvedWindow } from './window';

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

/** One dashboard query: rows grouped by url, best first, only as many as asked for. */
export function topArticlesQuery(request: TopArticlesRequest, window: ResolvedWindow): DashboardQueryBody {
  const filters: DashboardQueryBody['filters'] = [];
  if (request.domain !== undefined) filters.push({ filter: Dimension.DOMAIN, op: FilterOperator.EQ, value: [request.domain] });
  if (request.section !== undefined) filters.push({ filter: Dimension.SECTION, op: FilterOperator.EQ, value: [request.section] });
  return {
    dates: window.dates,
    filters,
    groupBy: [Dimension.URL],
    metrics: [request.metric],
    order: { metric: request.metric, sort: SortDirection.DESC },
    granularity: Granularity.DAILY,
    limit: request.limit,
  };
}

export function rankArticles({ value }: Fetched<readonly DashboardMetricResultWire[]>): ArticleRankingParent[] {
  const rows = value[0]?.actualData.values ?? [];
  return rows
    .flatMap((row) => {
      const url = row.items.find((item) => item.type === Dimension.URL)?.value;
      return url === undefined ? [] : [{ url, value: row.total }];
    })
    .map((ranked, index) => ({ ...ranked, rank: index + 1 }));
}
