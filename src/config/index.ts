/**
 * The configuration: env → typed, validated, frozen Config. One module per
 * section reads its variables (through the one EnvReader) and holds its
 * defaults; this module composes them and re-exports what other modules use.
 */
import { Secret } from '../redaction/secret';
import { readAnalytics, type AnalyticsConfig } from './analytics';
import { readBreaker, type BreakerConfig } from './breaker';
import { readCache, type CacheConfig } from './cache';
import { readCallerAuth, type CallerAuthConfig } from './callerAuth';
import { ConfigError } from './configError';
import { readDoctor, type DoctorSettings } from './doctor';
import { EnvReader, type ReadSecretFile } from './env';
import { readGovernor, type GovernorConfig } from './governor';
import { readLimits, type LimitsConfig } from './limits';
import { readMetrics, type MetricsSettings } from './metrics';
import { readRedis, type RedisConfig } from './redis';
import { readServer, type ServerSettings } from './server';
import { readReadiness, type ReadinessConfig } from './readiness';
import { readSubscriptions, type SubscriptionsConfig } from './subscriptions';
import { readTracing, type TracingConfig } from './tracing';
import { readUpstream, type UpstreamConfig } from './upstream';
import { readUpstreamCalls, type UpstreamCallSettings } from './upstreamCalls';

export { DEFAULT_ANALYTICS_CONFIG, type AnalyticsConfig } from './analytics';
export { DEFAULT_BREAKER_CONFIG, type BreakerConfig } from './breaker';
export { DEFAULT_CACHE_CONFIG, type CacheConfig } from './cache';
export type { CallerAuthConfig, CallerProof, JwtSettings } from './callerAuth';
export { ConfigError } from './configError';
export { EMBEDDED_GOVERNOR_CONFIG, type GovernorConfig } from './governor';
export { DEFAULT_LIMITS, type LimitsConfig } from './limits';
export { METRICS_DEFAULTS } from './metrics';
export {
  REDIS_STATE_DEFAULTS,
  type RedisClusterConfig,
  type RedisConfig,
  type RedisNode,
  type RedisSentinelConfig,
  type RedisTlsConfig,
  type RedisUrlConfig,
} from './redis';
export type { ReadinessConfig } from './readiness';
export { DEFAULT_SUBSCRIPTIONS_CONFIG, type CallbackUrlRule, type SubscriptionsConfig } from './subscriptions';
export { defaultLandingPage, SERVER_DEFAULTS, type HttpTimeouts, type LandingPage } from './server';
export type { TracingConfig } from './tracing';
export type { EmulatorOptions, UpstreamConfig } from './upstream';
export { UPSTREAM_CALL_DEFAULTS, UPSTREAM_MAX_ROWS } from './upstreamCalls';

export interface Config extends ServerSettings, UpstreamCallSettings, MetricsSettings, DoctorSettings {
  upstream: UpstreamConfig;
  cache: CacheConfig;
  analytics: AnalyticsConfig;
  governor: GovernorConfig;
  breaker: BreakerConfig;
  /** Shared state for several replicas; undefined keeps everything in process. */
  redis: RedisConfig | undefined;
  limits: LimitsConfig;
  /** Live numbers: subscription caps (docs/subscriptions.md). */
  subscriptions: SubscriptionsConfig;
  /** When readiness turns `degraded`: the event loop's lag (docs/operations.md). */
  readiness: ReadinessConfig;
  tracing: TracingConfig;
  /** Who may call /graphql (CALLER_AUTH and each proof's settings). */
  callerAuth: CallerAuthConfig;
}

/**
 * Reads and validates the whole environment at once, so that one start-up
 * failure lists every problem instead of revealing them one restart at a
 * time. `*_FILE` secrets are read here, once. `readSecretFile` is for tests.
 */
export function loadConfig(env: NodeJS.ProcessEnv, readSecretFile?: ReadSecretFile): Config {
  const reader = new EnvReader(env, readSecretFile);
  // Sections in the order of docs/configuration.md's table, so problems are listed in that order.
  const server = readServer(reader, env);
  const upstream = readUpstream(reader, env);
  const calls = readUpstreamCalls(reader);
  const config: Config = {
    ...server,
    upstream,
    callerAuth: readCallerAuth(reader, server.production, upstream),
    ...calls,
    analytics: readAnalytics(reader, calls.reportingMaxRows),
    cache: readCache(reader),
    governor: readGovernor(reader, upstream),
    breaker: readBreaker(reader),
    redis: readRedis(reader),
    limits: readLimits(reader),
    subscriptions: readSubscriptions(reader, server.production),
    readiness: readReadiness(reader),
    tracing: readTracing(reader, env),
    ...readMetrics(reader),
    ...readDoctor(reader),
  };
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return deepFreeze(config);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !(value instanceof Secret)) {
    for (const field of Object.values(value)) deepFreeze(field);
    Object.freeze(value);
  }
  return value;
}
