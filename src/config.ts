import { readEmulatorEnv, resolveOptions as resolveEmulatorOptions, type EmulatorBehaviour } from '../emulator/config';
import { Secret } from './secret';

/** The embedded emulator's options: the `EMULATOR_*` variables of `npm run emulator` except where it listens. */
export type EmulatorOptions = EmulatorBehaviour;

export type UpstreamConfig =
  | { mode: 'embedded'; emulator: EmulatorOptions }
  | { mode: 'remote'; reportingBaseUrl: string; recommenderUrl: string; email: string; password: Secret };

export interface Config {
  port: number;
  production: boolean;
  logLevel: string;
  upstream: UpstreamConfig;
  upstreamTimeoutMs: number;
  renderMaxConcurrency: number;
  /** Browser origins allowed to call /graphql (CORS); development adds the hosted Apollo Sandbox. */
  corsOrigins: string[];
  /** The answer cache (0 turns one off); see the call path in src/upstream/. */
  cache: {
    renderTtlSeconds: number;
    /** For dashboard windows that reach the present; a window that ended in the past is kept an hour. */
    dashboardTtlSeconds: number;
    /** How old an answer may be and still be served when the upstream fails. */
    staleIfErrorSeconds: number;
  };
  analytics: AnalyticsConfig;
  /** The rate governor's budgets (token buckets: a burst of the per-minute budget, refilling evenly). */
  governor: {
    /** Dashboard queries per account. */
    reportingPerMinute: number;
    /** Sign-ins per email. */
    signinPerMinute: number;
    /** render.json calls per recommender host. */
    renderPerMinute: number;
    /** Longest a call waits for its budget before UPSTREAM_RATE_LIMITED. */
    queueTimeoutMs: number;
  };
  breaker: {
    /** How long an upstream's circuit stays open before one probe call. */
    cooldownSeconds: number;
  };
  /** Shared state for several replicas; undefined keeps everything in process. */
  redis: RedisConfig | undefined;
  /** Prometheus metrics and GET /metrics (METRICS_ENABLED, default on). */
  metricsEnabled: boolean;
  /** A second listener serving only /metrics; /metrics is on PORT either way. */
  metricsPort?: number;
  limits: LimitsConfig;
  /** On when the standard OTEL_* variables name an exporter; the SDK reads them itself. */
  tracing: { enabled: boolean };
}

export interface RedisConfig {
  /** May carry a password, hence a Secret: never logged. */
  url: Secret;
  /** Prepended to every key, so several deployments can share one Redis. */
  keyPrefix: string;
  /** A Redis command slower than this counts as a failure and the replica falls back to local state. */
  timeoutMs: number;
}

/** Article analytics (`Article.analytics`, `topArticles`). */
export interface AnalyticsConfig {
  /** Article URLs per dashboard query; the real API returns at most about 500 rows per query. */
  chunkSize: number;
  /**
   * Relative windows end at the operation's instant rounded down to this many
   * seconds (0: not rounded), so repeated operations ask the same question
   * and the answer cache can serve them.
   */
  windowAlignSeconds: number;
}

/** What the server uses when a caller (a test) gives no analytics configuration. */
export const DEFAULT_ANALYTICS_CONFIG: AnalyticsConfig = Object.freeze({ chunkSize: 500, windowAlignSeconds: 60 });

/** The upstream's own maximum `limit` (contract §2): one chunk's rows must fit in one page. */
const MAX_ANALYTICS_CHUNK_SIZE = 1000;

/**
 * Budgets against real hosts, where the plan's limits are not published:
 * public clients of the reporting API observe about one dashboard query per
 * minute per account (README, "Upstream budget"); sign-in stays well under
 * the emulator's 20 per email; render.json has no observed limit, so a
 * moderate one.
 */
const REMOTE_DEFAULT_RATES = { reportingPerMinute: 1, signinPerMinute: 10, renderPerMinute: 600 } as const;

/** What one operation may spend; see "Limits" in the README. */
export interface LimitsConfig {
  maxDepth: number;
  maxAliases: number;
  maxDirectives: number;
  maxTokens: number;
  maxUpstreamCallsPerOperation: number;
  /** Parsed documents kept, in estimated heap bytes; 0 turns the cache off. */
  documentCacheBytes: number;
  persistedQueriesOnly: boolean;
  /** Required with persistedQueriesOnly. */
  persistedQueriesManifest?: string;
}

export const DEFAULT_LIMITS: LimitsConfig = Object.freeze({
  maxDepth: 7,
  maxAliases: 15,
  maxDirectives: 50,
  maxTokens: 1_000,
  maxUpstreamCallsPerOperation: 50,
  documentCacheBytes: 16 * 1024 * 1024,
  persistedQueriesOnly: false,
});

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** The remote upstream is all-or-nothing: a partial set must never fall back to the emulator. */
const REMOTE_VARIABLES = ['REPORTING_BASE_URL', 'RECOMMENDER_URL', 'REPORTING_EMAIL', 'REPORTING_PASSWORD'] as const;

/**
 * Reads and validates the whole environment at once, so that one start-up
 * failure lists every problem instead of revealing them one restart at a time.
 */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const reader = new EnvReader(env);
  // Read in this order so that problems are listed in the order of the README.
  const port = reader.integer('PORT', 4001, 0, 65_535);
  const logLevel = reader.oneOf('LOG_LEVEL', 'info', LOG_LEVELS);
  const upstream = readUpstream(reader, env);
  const config: Config = {
    port,
    production: env.NODE_ENV === 'production',
    logLevel,
    upstream,
    upstreamTimeoutMs: reader.integer('UPSTREAM_TIMEOUT_MS', 10_000, 1, 600_000),
    renderMaxConcurrency: reader.integer('RENDER_MAX_CONCURRENCY', 8, 1, 1_000),
    corsOrigins: reader.origins('CORS_ORIGINS'),
    cache: {
      renderTtlSeconds: reader.integer('RENDER_CACHE_TTL_SECONDS', 60, 0, 86_400),
      dashboardTtlSeconds: reader.integer('DASHBOARD_CACHE_TTL_SECONDS', 60, 0, 86_400),
      staleIfErrorSeconds: reader.integer('STALE_IF_ERROR_SECONDS', 600, 0, 7 * 86_400),
    },
    analytics: {
      chunkSize: reader.integer('ANALYTICS_CHUNK_SIZE', DEFAULT_ANALYTICS_CONFIG.chunkSize, 1, MAX_ANALYTICS_CHUNK_SIZE),
      windowAlignSeconds: reader.integer('ANALYTICS_WINDOW_ALIGN_SECONDS', DEFAULT_ANALYTICS_CONFIG.windowAlignSeconds, 0, 3_600),
    },
    governor: readGovernor(reader, upstream),
    breaker: { cooldownSeconds: reader.positiveNumber('BREAKER_COOLDOWN_SECONDS', 10, 3_600) },
    redis: readRedis(reader),
    metricsEnabled: reader.boolean('METRICS_ENABLED', true),
    limits: readLimits(reader),
    tracing: { enabled: readTracingEnabled(reader, env) },
  };
  const metricsPort = reader.optionalInteger('METRICS_PORT', 1, 65_535);
  if (metricsPort !== undefined) config.metricsPort = metricsPort;
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return deepFreeze(config);
}

function readLimits(reader: EnvReader): LimitsConfig {
  const limits: LimitsConfig = {
    maxDepth: reader.integer('MAX_QUERY_DEPTH', DEFAULT_LIMITS.maxDepth, 1, 1_000),
    maxAliases: reader.integer('MAX_QUERY_ALIASES', DEFAULT_LIMITS.maxAliases, 0, 100_000),
    maxDirectives: reader.integer('MAX_QUERY_DIRECTIVES', DEFAULT_LIMITS.maxDirectives, 0, 100_000),
    maxTokens: reader.integer('MAX_QUERY_TOKENS', DEFAULT_LIMITS.maxTokens, 1, 10_000_000),
    maxUpstreamCallsPerOperation: reader.integer(
      'MAX_UPSTREAM_CALLS_PER_OPERATION',
      DEFAULT_LIMITS.maxUpstreamCallsPerOperation,
      1,
      1_000_000,
    ),
    documentCacheBytes: reader.integer('DOCUMENT_CACHE_MAX_BYTES', DEFAULT_LIMITS.documentCacheBytes, 0, 64 * 1024 ** 3),
    persistedQueriesOnly: reader.boolean('PERSISTED_QUERIES_ONLY', false),
  };
  if (reader.isSet('PERSISTED_QUERIES_MANIFEST')) limits.persistedQueriesManifest = reader.string('PERSISTED_QUERIES_MANIFEST');
  if (limits.persistedQueriesOnly && limits.persistedQueriesManifest === undefined) {
    reader.problems.push('PERSISTED_QUERIES_ONLY=true needs PERSISTED_QUERIES_MANIFEST: the path of the persisted operations manifest');
  }
  return limits;
}

/**
 * The OpenTelemetry SDK reads the OTEL_* variables itself; here we only
 * decide whether to start it (an endpoint or an exporter is named, and the
 * SDK is not disabled) and check the endpoints are URLs, so a typo fails at
 * start-up instead of silently losing every span.
 */
function readTracingEnabled(reader: EnvReader, env: NodeJS.ProcessEnv): boolean {
  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) {
    if (reader.isSet(name)) reader.httpUrl(name);
  }
  if (env.OTEL_SDK_DISABLED === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER;
  if (exporter === 'none') return false;
  return (
    reader.isSet('OTEL_EXPORTER_OTLP_ENDPOINT') ||
    reader.isSet('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ||
    (exporter !== undefined && exporter !== '')
  );
}

function readUpstream(reader: EnvReader, env: NodeJS.ProcessEnv): UpstreamConfig {
  const present = REMOTE_VARIABLES.filter((name) => reader.isSet(name));
  if (present.length === 0) {
    // The emulator's own parser, so each EMULATOR_* variable has one definition
    // and one set of limits; its problems join ours as configuration errors.
    const { options, problems } = readEmulatorEnv(env);
    reader.problems.push(...problems);
    return { mode: 'embedded', emulator: options };
  }
  const missing = REMOTE_VARIABLES.filter((name) => !reader.isSet(name));
  if (missing.length > 0) {
    reader.problems.push(
      `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing: set all of ${REMOTE_VARIABLES.join(', ')} ` +
        `to use a remote upstream (${present.join(', ')} ${present.length === 1 ? 'is' : 'are'} set), or none of them to use the embedded emulator`,
    );
  }
  return {
    mode: 'remote',
    reportingBaseUrl: reader.httpUrl('REPORTING_BASE_URL'),
    recommenderUrl: reader.httpUrl('RECOMMENDER_URL'),
    email: reader.email('REPORTING_EMAIL'),
    password: reader.secret('REPORTING_PASSWORD'),
  };
}

function readRedis(reader: EnvReader): RedisConfig | undefined {
  const keyPrefix = reader.keyPrefix('REDIS_KEY_PREFIX', 'analytics-subgraph:');
  const timeoutMs = reader.integer('REDIS_TIMEOUT_MS', 250, 1, 60_000);
  const url = reader.redisUrl('REDIS_URL');
  return url === undefined ? undefined : { url, keyPrefix, timeoutMs };
}

/** Embedded, the governor spends exactly the emulator's budgets; remote, conservative defaults. */
function readGovernor(reader: EnvReader, upstream: UpstreamConfig): Config['governor'] {
  const defaults = upstream.mode === 'embedded' ? resolveEmulatorOptions({ rates: upstream.emulator.rates }).rates : REMOTE_DEFAULT_RATES;
  return {
    reportingPerMinute: reader.integer('REPORTING_RATE_PER_MINUTE', defaults.reportingPerMinute, 1, 1_000_000_000),
    signinPerMinute: reader.integer('SIGNIN_RATE_PER_MINUTE', defaults.signinPerMinute, 1, 1_000_000_000),
    renderPerMinute: reader.integer('RENDER_RATE_PER_MINUTE', defaults.renderPerMinute, 1, 1_000_000_000),
    queueTimeoutMs: reader.integer('UPSTREAM_QUEUE_TIMEOUT_MS', 2_000, 0, 600_000),
  };
}

/** Collects problems instead of throwing; the returned placeholder values are discarded when any problem exists. */
class EnvReader {
  readonly problems: string[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** An empty value counts as unset: `VAR=` is how container tooling usually "unsets" a variable. */
  isSet(name: string): boolean {
    const value = this.env[name];
    return value !== undefined && value !== '';
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    return this.optionalInteger(name, min, max) ?? fallback;
  }

  optionalInteger(name: string, min: number, max: number): number | undefined {
    if (!this.isSet(name)) return undefined;
    const raw = String(this.env[name]).trim();
    const value = /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(this.env[name])})`);
      return undefined;
    }
    return value;
  }

  /** Decimals allowed (e.g. a cool-down of 0.5 s in tests). */
  positiveNumber(name: string, fallback: number, max: number): number {
    if (!this.isSet(name)) return fallback;
    const raw = String(this.env[name]).trim();
    const value = /^\d*\.?\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isFinite(value) || value <= 0 || value > max) {
      this.problems.push(`${name} must be a number > 0 and <= ${max} (got ${JSON.stringify(this.env[name])})`);
      return fallback;
    }
    return value;
  }

  boolean(name: string, fallback: boolean): boolean {
    if (!this.isSet(name)) return fallback;
    const value = String(this.env[name]).trim().toLowerCase();
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    this.problems.push(`${name} must be true or false (got ${JSON.stringify(this.env[name])})`);
    return fallback;
  }

  string(name: string): string {
    return String(this.env[name] ?? '');
  }

  oneOf(name: string, fallback: string, allowed: readonly string[]): string {
    if (!this.isSet(name)) return fallback;
    const value = String(this.env[name]);
    if (!allowed.includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`);
      return fallback;
    }
    return value;
  }

  httpUrl(name: string): string {
    if (!this.isSet(name)) return '';
    const raw = String(this.env[name]);
    const url = parseUrl(raw);
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      // A value with userinfo might carry a password: name the variable, not the value.
      const shown = raw.includes('@') ? '' : ` (got ${JSON.stringify(raw)})`;
      this.problems.push(`${name} must be an absolute http(s) URL${shown}`);
      return '';
    }
    if (url.username !== '' || url.password !== '') {
      this.problems.push(`${name} must not contain credentials; use REPORTING_EMAIL and REPORTING_PASSWORD`);
      return '';
    }
    return raw;
  }

  /** A comma-separated list of exact origins (`https://host[:port]`), as browsers send them in `Origin`. */
  origins(name: string): string[] {
    if (!this.isSet(name)) return [];
    const origins: string[] = [];
    for (const raw of String(this.env[name]).split(',')) {
      const value = raw.trim();
      if (value === '') continue;
      let origin: string | undefined;
      try {
        const url = new URL(value);
        origin =
          (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value.replace(/\/$/, '') ? url.origin : undefined;
      } catch {
        origin = undefined;
      }
      if (origin === undefined)
        this.problems.push(
          `${name} must list origins like https://app.example.com (scheme, host, optional port; no path), comma-separated (got ${JSON.stringify(value)})`,
        );
      else origins.push(origin);
    }
    return origins;
  }

  /** `redis://` or `rediss://` (TLS), optionally with `user:password@`; the value is never echoed, it may hold a password. */
  redisUrl(name: string): Secret | undefined {
    if (!this.isSet(name)) return undefined;
    const raw = String(this.env[name]);
    const url = parseUrl(raw);
    if (url === undefined || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '') {
      this.problems.push(`${name} must be a redis:// or rediss:// URL with a host (e.g. rediss://:password@redis.internal:6379/0)`);
      return undefined;
    }
    return new Secret(raw);
  }

  keyPrefix(name: string, fallback: string): string {
    if (!this.isSet(name)) return fallback;
    const value = String(this.env[name]);
    if (!/^[\w.:{}-]{1,100}$/.test(value)) {
      this.problems.push(`${name} must be 1 to 100 letters, digits or _ . : - { } (got ${JSON.stringify(value)})`);
      return fallback;
    }
    return value;
  }

  email(name: string): string {
    if (!this.isSet(name)) return '';
    const value = String(this.env[name]);
    if (!/^[^\s@]+@[^\s@]+$/.test(value)) {
      this.problems.push(`${name} must be an email address`);
      return '';
    }
    return value;
  }

  /**
   * Never trimmed and never echoed: whitespace may be part of a password.
   * When unset, the missing-variable problem is already recorded and the
   * placeholder never leaves loadConfig.
   */
  secret(name: string): Secret {
    return new Secret(this.isSet(name) ? String(this.env[name]) : 'unset');
  }
}

function parseUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !(value instanceof Secret)) {
    for (const field of Object.values(value)) deepFreeze(field);
    Object.freeze(value);
  }
  return value;
}
