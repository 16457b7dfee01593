import DataLoader from 'dataloader';
import type { AnalyticsTables, Cell } from '../../reporting/tables/analyticsTables';
import type { TableSpec } from '../../reporting/tables/tableSpec';
import type { MetricName } from '../../kernel/wire';

/** One number: one metric of one article in one table. */
export interface ArticleMetricKey {
  spec: TableSpec;
  url: string;
  metric: MetricName;
}

/** A key's answer: its Cell, or the Error its field answers (kept as a value so one metric's error leaves the others). */
export type ArticleMetricsLoader = DataLoader<ArticleMetricKey, Cell | Error, string>;

export interface ArticleMetricsLoaderOptions {
  /** The process-wide tables. */
  tables: Pick<AnalyticsTables, 'articles'>;
  /** The operation's deadline (epoch ms): an ask waits for a slot until then, no longer. */
  deadline: number;
}

function articleMetricCacheKey(key: ArticleMetricKey): string {
  return JSON.stringify([key.spec.key, key.url, key.metric]);
}

/**
 * One loader per GraphQL operation (built in the context factory): every
 * `Article.analytics` of the operation, whatever its aliases and selections,
 * lands in one batch, which becomes one ask per table (the union of its urls
 * and metrics); the tables decide what, if anything, to send upstream.
 */
export function createArticleMetricsLoader(options: ArticleMetricsLoaderOptions): ArticleMetricsLoader {
  return new DataLoader(articleMetricsBatch(options), { cacheKeyFn: articleMetricCacheKey, name: 'articleMetrics' });
}

/** The batch function: one ask per table, each key answered by its Cell or its Error. */
function articleMetricsBatch(options: ArticleMetricsLoaderOptions): (keys: readonly ArticleMetricKey[]) => Promise<(Cell | Error)[]> {
  return async (keys) => {
    const bySpec = new Map<string, { spec: TableSpec; urls: Set<string>; metrics: Set<MetricName> }>();
    for (const { spec, url, metric } of keys) {
      const ask = bySpec.get(spec.key) ?? { spec, urls: new Set<string>(), metrics: new Set<MetricName>() };
      ask.urls.add(url);
      ask.metrics.add(metric);
      bySpec.set(spec.key, ask);
    }
    const answers = new Map<string, Map<string, Map<MetricName, Cell | Error>>>();
    await Promise.all(
      [...bySpec.values()].map(async (ask) =>
        answers.set(ask.spec.key, await options.tables.articles(ask.spec, [...ask.urls], [...ask.metrics], options.deadline)),
      ),
    );
    return keys.map(
      (key) =>
        answers.get(key.spec.key)?.get(key.url)?.get(key.metric) ??
        new Error(`articleMetrics batch lost the key ${articleMetricCacheKey(key)}`),
    );
  };
}
