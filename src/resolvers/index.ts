import type { Resolvers } from '../__generated__/resolvers-types';
import { DateTimeScalar } from '../scalars/dateTime';
import { Article } from './article';
import { ArticleAnalytics } from './articleAnalytics';
import { ArticleRanking } from './articleRanking';
import { DashboardResult } from './dashboardResult';
import { DashboardRow } from './dashboardRow';
import { DataPoint } from './dataPoint';
import { DimensionValue } from './dimensionValue';
import { Dimension, FilterOperator, Granularity, Metric, SortDirection, TimeUnit } from './enums';
import { Query } from './query';
import { Reader } from './reader';
import { Recommendation } from './recommendation';

/** Every resolver of the subgraph, listed explicitly so a missing type is a visible omission. */
export const resolvers: Resolvers = {
  Query,
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
