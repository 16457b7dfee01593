import type { DateWindowInput } from '../dashboard/dashboardQueryInput';
import type { MetricName } from '../../kernel/wire';
import { Metric, TimeUnit } from '../../../contract';
import { tableSpec, type TableSpec } from '../tables/tableSpec';
import { validateWindow } from '../dashboard/analyticsWindow';
import type { InvalidArgument } from '../dashboard/invalidArgument';

const MAX_TOP_ARTICLES = 100;

/** The schema's defaults, also used when an argument is given as an explicit null. */
const TOP_ARTICLES_DEFAULTS = {
  window: { last: { number: 1, unit: TimeUnit.DAY } } satisfies DateWindowInput,
  metric: Metric.PAGE_VIEWS_TOTAL,
  limit: 10,
};

/** `topArticles` arguments as the caller gives them; null or absent: the default. */
export interface TopArticlesArgs {
  window?: DateWindowInput | null;
  metric?: MetricName | null;
  domain?: string | null;
  section?: string | null;
  limit?: number | null;
}

/** `topArticles` arguments with the defaults filled in. */
export interface TopArticlesRequest {
  window: DateWindowInput;
  metric: MetricName;
  domain?: string;
  section?: string;
  limit: number;
}

export function toTopArticlesRequest(args: TopArticlesArgs): TopArticlesRequest {
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
