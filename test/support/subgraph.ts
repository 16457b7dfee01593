/**
 * Helpers for the subgraph's own tests: recording fakes of the two upstream
 * datasources (same method signatures as the protected
 * DashboardEndpoint.query and RenderEndpoint.render) and a started server to run operations against.
 */
import type { GraphQLFormattedError } from 'graphql';
import type { Served } from '../../src/kernel/fetched';
import type { DashboardMetricResultWire, DashboardQueryBody, RecommendationWire, RenderParams } from '../../src/kernel/wire';
import type { PersistedManifest } from '../../src/graphql/limits/persistedManifest';
import type { BuiltServer, ServerConfig } from '../../src/web/server';
import { testConfig } from './config';
import type { Services } from '../../src/web/services';
import { buildTestServer } from './services';
import { freeBudget } from './freeBudget';
import type { SlotBudget } from '../../src/upstream/endpoints/dashboard';
import type { SlotGrant } from '../../src/upstream/transport/httpClient';

export interface FakeRecommender {
  calls: RenderParams[];
  render(params: RenderParams): Promise<Served<RecommendationWire[]>>;
}

export interface FakeReporting {
  bodies: DashboardQueryBody[];
  /** Each body is one attempt, granted its slot by the budget queue (`grant`) from a budget that always has one. */
  query(body: DashboardQueryBody, grant?: SlotGrant): Promise<Served<DashboardMetricResultWire[]>>;
  budget: SlotBudget;
}

/** When every fake answer "arrived" (2026-11-20T12:00:00.000Z). */
export const FAKE_FETCHED_AT = Date.UTC(2026, 10, 20, 12);

/** Every fake answer is a call to the upstream (a cache `miss`), as the protected endpoints report it. */
const fetchedNow = async <T>(answer: Promise<T>): Promise<Served<T>> => ({
  value: await answer,
  fetchedAt: FAKE_FETCHED_AT,
  cache: 'miss',
});

/** Three items per call whose urls and titles name the parameters, so tests can tell answers apart. */
export function itemsFor(params: RenderParams, count = 3): RecommendationWire[] {
  const about = params.canonicalUrl ?? params.domain ?? 'none';
  return Array.from({ length: count }, (_, index) => ({
    url: `https://news.example/${encodeURIComponent(params.id)}/${index + 1}`,
    title: `${params.id} #${index + 1} for ${about} / ${params.clientId ?? 'anonymous'}`,
    img: `https://news.example/img/${index + 1}.jpg`,
    authors: ['Ada Writer'],
    sections: ['World'],
    publishTime: `2026-11-2${index} 08:15:0${index}`,
  }));
}

export function fakeRecommender(
  answer: (params: RenderParams) => Promise<RecommendationWire[]> = async (params) => itemsFor(params),
): FakeRecommender {
  const calls: RenderParams[] = [];
  return {
    calls,
    render: (params) => {
      calls.push(params);
      return fetchedNow(answer(params));
    },
  };
}

/** A result per requested metric, grouped rows built from `groupBy`, and a three-point hourly series. */
export function resultsFor(body: DashboardQueryBody): DashboardMetricResultWire[] {
  return body.metrics.map((metric, metricIndex) => ({
    metric,
    total: 100 * (metricIndex + 1),
    granularity: body.granularity ?? 'hourly',
    availableGranularities: ['hourly', 'daily'],
    actualData: {
      values:
        body.groupBy.length === 0
          ? [{ key: 'all', total: 100 * (metricIndex + 1), items: [] }]
          : [1, 2].map((row) => ({
              key: `row-${row}`,
              total: 10 * row,
              items: body.groupBy.map((dimension) => {
                const value = dimension === 'url' ? `https://news.example/article-${row}` : `${dimension}-${row}`;
                return { id: value, value, type: dimension };
              }),
            })),
      data: [
        { key: '2026-11-20 08:00:00', value: 1 },
        { key: '2026-11-20 09:00:00', value: 2 },
        { key: '2026-11-20 10:00:00', value: 3 },
      ],
    },
  }));
}

export function fakeReporting(
  answer: (body: DashboardQueryBody) => Promise<DashboardMetricResultWire[]> = async (body) => resultsFor(body),
): FakeReporting {
  const bodies: DashboardQueryBody[] = [];
  return {
    bodies,
    query: async (body, grant) => {
      await grant?.({ service: 'reporting', endpoint: '/api/dashboard/query' }, undefined);
      bodies.push(body);
      return fetchedNow(answer(body));
    },
    budget: freeBudget(),
  };
}

export const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** The configuration's default answer TTLs (from the real loader, so tests follow its defaults). */
export const DEFAULT_CACHE_TTLS: ServerConfig['cache'] = testConfig().cache;

export interface TestServerOptions {
  recommender?: FakeRecommender;
  reporting?: FakeReporting;
  config?: Partial<ServerConfig>;
  persistedManifest?: PersistedManifest;
  logger?: Services['logger'];
}

/** A started server over fakes; stop it in afterAll/afterEach. */
export async function startTestServer(
  options: TestServerOptions = {},
): Promise<BuiltServer & { recommender: FakeRecommender; reporting: FakeReporting }> {
  const recommender = options.recommender ?? fakeRecommender();
  const reporting = options.reporting ?? fakeReporting();
  const server = buildTestServer(testConfig({ production: false, renderMaxConcurrency: 4, cache: DEFAULT_CACHE_TTLS, ...options.config }), {
    recommender,
    dashboard: reporting,
    logger: options.logger ?? silentLogger,
    ...(options.persistedManifest === undefined ? {} : { persistedManifest: options.persistedManifest }),
  });
  await server.start();
  return { ...server, recommender, reporting };
}

export interface OperationResult<TData> {
  data?: TData | null;
  errors?: readonly GraphQLFormattedError[];
}

/** One operation through Apollo's full request pipeline (context factory, formatError), without HTTP. */
export async function execute<TData = Record<string, unknown>>(
  server: BuiltServer,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<OperationResult<TData>> {
  const response = await server.apollo.executeOperation<TData>(
    { query, variables },
    // executeOperation skips the HTTP context function; build the context the same way it does.
    { contextValue: server.createContext() },
  );
  if (response.body.kind !== 'single') throw new Error('expected a single result, got an incremental one');
  return response.body.singleResult;
}

export function errorCodes(result: OperationResult<unknown>): unknown[] {
  return (result.errors ?? []).map((error) => error.extensions?.code);
}
