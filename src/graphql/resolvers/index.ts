import type {
  DimensionResolvers,
  FilterOperatorResolvers,
  GranularityResolvers,
  MetricResolvers,
  Resolvers,
  SortDirectionResolvers,
  TimeUnitResolvers,
} from '../__generated__/resolvers-types';
import { DateTimeScalar } from '../scalars/dateTime';
import { Article } from './article';
import { ArticleAnalytics } from './articleAnalytics';
import { ArticleRanking } from './articleRanking';
import { DashboardResult } from './dashboardResult';
import { DashboardRow } from './dashboardRow';
import { DataPoint } from './dataPoint';
import { DimensionValue } from './dimensionValue';
import { Dimension, FilterOperator, Granularity, Metric, SortDirection, TimeUnit } from '../../../contract';
import { Query } from './query';
import { Reader } from './reader';
import { Recommendation } from './recommendation';
import { Subscription } from './subscription';

/** Every resolver of the subgraph, listed explicitly so a missing type is a visible omission. */
export const resolvers: Resolvers = {
  Query,
  Subscription,
  Article,
  ArticleAnalytics,
  ArticleRanking,
  Reader,
  Recommendation,
  DashboardResult,
  DashboardRow,
  DimensionValue,
  DataPoint,
  DateTime: DateTimeScalar,
  // Enum resolver maps: schema value → upstream name, both ways.
  Metric,
  Dimension,
  Granularity,
  TimeUnit,
  FilterOperator,
  SortDirection,
};

// Compile-time proof that each enum map has exactly the schema's values as
// keys: a value added to the schema without a mapping fails the type-check
// (the Resolvers type alone would accept a map that misses one).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
/** @public Exported only so noUnusedLocals accepts a type that exists to be checked. */
export type EnumMapsCoverTheSchema = [
  Assert<Same<keyof typeof Metric, keyof MetricResolvers>>,
  Assert<Same<keyof typeof Dimension, keyof DimensionResolvers>>,
  Assert<Same<keyof typeof Granularity, keyof GranularityResolvers>>,
  Assert<Same<keyof typeof TimeUnit, keyof TimeUnitResolvers>>,
  Assert<Same<keyof typeof FilterOperator, keyof FilterOperatorResolvers>>,
  Assert<Same<keyof typeof SortDirection, keyof SortDirectionResolvers>>,
];
