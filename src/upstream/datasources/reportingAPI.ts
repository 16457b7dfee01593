import type { HttpClient, SlotGrant } from '../transport/httpClient';
import { isRecord, isStringArray } from '../transport/typeGuards';
import { buildUrl } from '../transport/url';
import { UpstreamError } from '../../kernel/failures/upstreamError';
import { Metric } from '../../../contract';
import { upstreamTimeToIso } from '../../kernel/instants';
import { UPSTREAM_MAX_ROWS } from '../../config';
import type { Fetched } from '../../kernel/fetched';
import { GRANULARITY_NAMES, type DashboardMetricResultWire, type DashboardQueryBody, type GranularityName } from '../../kernel/wire';

export const DASHBOARD_QUERY_PATH = '/api/dashboard/query';

export interface ReportingAPIOptions {
  baseUrl: string;
  /** The HTTP path with the token stage on top (pipeline.ts, `reportingHttpPath`): it adds the bearer token and renews it after a 401. */
  http: HttpClient;
  /** Clock for `fetchedAt`. */
  now?: () => number;
}

/** The reporting host's dashboard query, authenticated with the process-wide bearer token. */
export class ReportingAPI {
  private readonly url: URL;
  private readonly http: HttpClient;
  private readonly now: () => number;

  constructor(options: ReportingAPIOptions) {
    this.url = buildUrl(options.baseUrl, DASHBOARD_QUERY_PATH);
    this.http = options.http;
    this.now = options.now ?? Date.now;
  }

  /** `grant`: the budget queue's grant of each attempt's place in the budget (CallOptions.grant). */
  async query(body: DashboardQueryBody, grant?: SlotGrant): Promise<Fetched<DashboardMetricResultWire[]>> {
    const request = {
      service: 'reporting',
      endpoint: DASHBOARD_QUERY_PATH,
      url: this.url,
      method: 'POST',
      body,
      // The query only reads, so a retry after a dropped connection cannot change anything upstream;
      // each retry still spends its own place in the budget, granted by the budget queue (see pipeline.ts).
      idempotent: true,
    } as const;
    const json = await this.http.requestJson(request, grant === undefined ? undefined : { grant });
    if (json === undefined) throw metricUnavailable(body.metrics);
    assertDashboardResults(json, body);
    return { value: json.map(withKnownGranularities), fetchedAt: this.now() };
  }
}

const GRAPHQL_METRIC_NAME = new Map<string, string>(Object.entries(Metric).map(([name, wire]) => [wire, name]));

/**
 * The live API answers 200 with an empty body when a metric is not recognised
 * for the account (contract §2). It names no metric, so the error names all
 * of the request's (or the one a learned plan names), as the API client wrote
 * them (GraphQL enum names). The one builder of this error.
 */
export function metricUnavailable(metrics: readonly string[]): UpstreamError {
  return new UpstreamError({
    service: 'reporting',
    endpoint: DASHBOARD_QUERY_PATH,
    kind: 'metric_unavailable',
    status: 200,
    metrics: metrics.map((metric) => GRAPHQL_METRIC_NAME.get(metric) ?? metric),
  });
}

function assertDashboardResults(json: unknown, body: DashboardQueryBody): asserts json is DashboardMetricResultWire[] {
  const problem = findDashboardShapeProblem(json, body);
  if (problem !== undefined) {
    throw new UpstreamError({ service: 'reporting', endpoint: DASHBOARD_QUERY_PATH, kind: 'bad_response', reason: problem });
  }
}

const isKnownGranularity = (name: string): name is GranularityName => (GRANULARITY_NAMES as readonly string[]).includes(name);

/**
 * A granularity the upstream adds later is one we cannot ask for anyway:
 * leave it out of `availableGranularities` rather than fail the whole report.
 */
function withKnownGranularities(result: DashboardMetricResultWire): DashboardMetricResultWire {
  const known = result.availableGranularities.filter(isKnownGranularity);
  return known.length === result.availableGranularities.length ? result : { ...result, availableGranularities: known };
}

/**
 * Checks every field the resolvers read, so that a malformed answer becomes
 * one UPSTREAM_BAD_RESPONSE naming the field instead of a TypeError deep in a
 * resolver (or an enum serialization error). Values that become GraphQL enums
 * must answer the question asked: a requested metric, a grouped dimension, a
 * known granularity. Extra fields are fine.
 */
export function findDashboardShapeProblem(json: unknown, body: DashboardQueryBody): string | undefined {
  if (!Array.isArray(json)) return 'expected an array of metric results';
  for (const [index, result] of json.entries()) {
    const at = `[${index}]`;
    if (!isRecord(result)) return `${at} is not an object`;
    if (typeof result.metric !== 'string') return `${at}.metric is not a string`;
    if (!(body.metrics as string[]).includes(result.metric)) return `${at}.metric ${JSON.stringify(result.metric)} was not requested`;
    if (typeof result.total !== 'number') return `${at}.total is not a number`;
    if (typeof result.granularity !== 'string') return `${at}.granularity is not a string`;
    if (!isKnownGranularity(result.granularity))
      return `${at}.granularity ${JSON.stringify(result.granularity)} is not a known granularity`;
    if (!isStringArray(result.availableGranularities)) return `${at}.availableGranularities is not a list of strings`;
    const actualData = result.actualData;
    if (!isRecord(actualData)) return `${at}.actualData is not an object`;
    const problem =
      findRowsProblem(actualData.values, `${at}.actualData.values`, body) ?? findSeriesProblem(actualData.data, `${at}.actualData.data`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * Counted before any row is read: an upstream that ignores `limit` would
 * otherwise have its whole answer checked, cached and shared (100,000 rows
 * for `limit: 3` once made a 3 MB cache entry). Refused rather than cut: an
 * upstream that ignored `limit` may have ignored `from` and `order` too, and
 * the first rows of such a page are not the ones asked for. Without a
 * `limit`, the upstream's own maximum bounds the page.
 */
function findRowsProblem(rows: unknown, at: string, body: DashboardQueryBody): string | undefined {
  if (!Array.isArray(rows)) return `${at} is not an array`;
  const limit = body.limit ?? UPSTREAM_MAX_ROWS;
  if (rows.length > limit) return `${at} has ${rows.length} rows, more than the ${limit} asked for (limit)`;
  for (const [index, row] of rows.entries()) {
    const rowAt = `${at}[${index}]`;
    if (!isRecord(row)) return `${rowAt} is not an object`;
    if (typeof row.key !== 'string') return `${rowAt}.key is not a string`;
    if (typeof row.total !== 'number') return `${rowAt}.total is not a number`;
    if (!Array.isArray(row.items)) return `${rowAt}.items is not an array`;
    const badItem = row.items.findIndex(
      (item) => !isRecord(item) || typeof item.id !== 'string' || typeof item.value !== 'string' || typeof item.type !== 'string',
    );
    if (badItem >= 0) return `${rowAt}.items[${badItem}] is not an {id, value, type} object of strings`;
    const ungrouped = row.items.findIndex((item) => !(body.groupBy as string[]).includes(item.type));
    if (ungrouped >= 0) return `${rowAt}.items[${ungrouped}].type ${JSON.stringify(row.items[ungrouped].type)} is not a grouped dimension`;
  }
  return undefined;
}

/** A bucket key becomes `DataPoint.time`, so it must be a readable time, not just a string. */
function findSeriesProblem(points: unknown, at: string): string | undefined {
  if (!Array.isArray(points)) return `${at} is not an array`;
  const badPoint = points.findIndex((point) => !isRecord(point) || typeof point.key !== 'string' || typeof point.value !== 'number');
  if (badPoint >= 0) return `${at}[${badPoint}] is not a {key: string, value: number} object`;
  const badTime = points.findIndex((point) => upstreamTimeToIso(point.key) === undefined);
  if (badTime < 0) return undefined;
  return `${at}[${badTime}].key is not a "yyyy-MM-dd HH:mm:ss" time (got ${JSON.stringify(String(points[badTime].key).slice(0, 40))})`;
}
