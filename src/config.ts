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
  };
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return deepFreeze(config);
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
