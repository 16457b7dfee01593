/**
 * Upstream payloads exactly as they travel on the wire
 * (docs/upstream-contract.md). codegen `mappers` make these the
 * parents of the GraphQL resolvers, so there is no separate conversion layer.
 */

// ---- sign-in: POST {base_url}/api/user/signin -------------------------------

export interface SignInRequest {
  email: string;
  password: string;
}

// ---- dashboard: POST {base_url}/api/dashboard/query -------------------------

// The names are the contract's (contract/names.ts), defined once for the subgraph and the emulator.
export { GRANULARITY_NAMES } from '../../contract';
import type {
  MetricName,
  DimensionName,
  GranularityName,
  TimeUnitName,
  SortName,
  FilterOperatorName as OperatorName,
} from '../../contract';
export type { MetricName, DimensionName, GranularityName, TimeUnitName, SortName, OperatorName };

/** One dashboard filter on the wire: `{"filter": "domain", "op": "eq", "value": ["example.com"]}`. */
export interface DashboardFilterWire {
  filter: DimensionName;
  op: OperatorName;
  value: string[];
}

export interface DashboardQueryBody {
  dates: { last: { number: number; dimension: TimeUnitName } } | { range: { start: string; end: string } };
  /** Key names as the live API takes them (contract §2 [seen]); the public GraphQL input keeps its own names. */
  filters: DashboardFilterWire[];
  groupBy: DimensionName[];
  metrics: MetricName[];
  order: { metric: MetricName; sort: SortName };
  granularity?: GranularityName;
  limit?: number;
  from?: number;
}

export interface DashboardItemWire {
  id: string;
  value: string;
  type: DimensionName;
}

export interface DashboardRowWire {
  key: string;
  total: number;
  items: DashboardItemWire[];
}

export interface DashboardPointWire {
  /** Bucket start, `yyyy-MM-dd HH:mm:ss` in UTC. */
  key: string;
  value: number;
}

export interface DashboardMetricResultWire {
  metric: MetricName;
  total: number;
  granularity: GranularityName;
  availableGranularities: GranularityName[];
  actualData: { values: DashboardRowWire[]; data: DashboardPointWire[] };
}

// ---- recommendations: GET {recommender_url}/recommenderexperience/render.json

/** The full parameter set of one render.json call; also the DataLoader key. */
export interface RenderParams {
  id: string;
  canonicalUrl?: string;
  domain?: string;
  clientId?: string;
}

export interface RecommendationWire {
  url: string;
  title: string;
  /** The contract always sends one; typed optional so a missing image degrades to a null field, not an error. */
  img?: string | null;
  authors: string[];
  sections: string[];
  /** `yyyy-MM-dd HH:mm:ss`, UTC. */
  publishTime: string;
}

export interface RenderResponseWire {
  type: 'RecommenderExperienceResponse';
  recommendation: RecommendationWire[];
}

/** The vendor's sign-in path: the call path posts to it, and client errors name a failure there as the sign-in's. */
export const SIGN_IN_PATH = '/api/user/signin';
