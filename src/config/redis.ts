import { Secret } from '../redaction/secret';
import type { EnvReader } from './env';

/** Shared state for several replicas. */
export interface RedisConfig {
  /** May carry a password, hence a Secret: never logged. */
  url: Secret;
  /** Prepended to every key, so several deployments can share one Redis. */
  keyPrefix: string;
  /** A Redis command slower than this counts as a failure and the replica falls back to local state. */
  timeoutMs: number;
}

const REDIS_DEFAULTS = { keyPrefix: 'analytics-subgraph:', timeoutMs: 250 } as const;

/** Undefined (everything kept in process) unless REDIS_URL or REDIS_URL_FILE is set. */
export function readRedis(reader: EnvReader): RedisConfig | undefined {
  const keyPrefix =
    reader.matching('REDIS_KEY_PREFIX', /^[\w.:{}-]{1,100}$/, '1 to 100 letters, digits or _ . : - { }') ?? REDIS_DEFAULTS.keyPrefix;
  const timeoutMs = reader.integer('REDIS_TIMEOUT_MS', { min: 1, max: 60_000 }) ?? REDIS_DEFAULTS.timeoutMs;
  const fromFile = reader.isSet('REDIS_URL_FILE');
  const value = reader.valueOrFile('REDIS_URL');
  if (value === undefined) return undefined;
  const url = reader.secretUrl(
    fromFile ? 'REDIS_URL (read from REDIS_URL_FILE)' : 'REDIS_URL',
    value,
    ['redis:', 'rediss:'],
    'a redis:// or rediss:// URL with a host (e.g. rediss://:password@redis.internal:6379/0)',
  );
  return url === undefined ? undefined : { url: new Secret(url), keyPrefix, timeoutMs };
}
