import { Secret } from '../redaction/secret';
import type { EnvReader } from './env';

/** A Redis (or Sentinel) address from `host:port,…`. */
export interface RedisNode {
  host: string;
  port: number;
}

/** PEM material for TLS beyond the system's trust store. The key is a Secret: never logged. */
export interface RedisTlsConfig {
  /** Trusted CA certificates (REDIS_TLS_CA_FILE); unset: the system's (and NODE_EXTRA_CA_CERTS). */
  ca?: string;
  /** Client certificate and its key (REDIS_TLS_CERT_FILE, REDIS_TLS_KEY_FILE), for servers that ask for one. */
  cert?: string;
  key?: Secret;
}

interface RedisCommonConfig {
  /** Prepended to every key, so several deployments can share one Redis. */
  keyPrefix: string;
  /** A Redis command slower than this counts as a failure and the replica falls back to local state. */
  timeoutMs: number;
  /** Set: TLS, with these certificates beyond the system's ({} for none). A REDIS_URL says TLS with `rediss://` instead. */
  tls?: RedisTlsConfig;
}

/** One endpoint: a single Redis, or a proxy/managed endpoint that hides its failovers. */
export interface RedisUrlConfig extends RedisCommonConfig {
  /** May carry a password, hence a Secret: never logged. */
  url: Secret;
}

/** Redis Sentinel: the sentinels name the current primary of the group `name`. */
export interface RedisSentinelConfig extends RedisCommonConfig {
  sentinel: {
    nodes: RedisNode[];
    name: string;
    /** The sentinels' own password (REDIS_SENTINEL_PASSWORD), if they require one. */
    sentinelPassword?: Secret;
    /** The data nodes' password (REDIS_PASSWORD). */
    password?: Secret;
  };
}

/** Redis Cluster: any reachable seed node tells the client the rest. */
export interface RedisClusterConfig extends RedisCommonConfig {
  cluster: {
    nodes: RedisNode[];
    password?: Secret;
  };
}

/** Shared state for several replicas, through exactly one of the three topologies. */
export type RedisConfig = RedisUrlConfig | RedisSentinelConfig | RedisClusterConfig;

const REDIS_DEFAULTS = { keyPrefix: 'analytics-subgraph:', timeoutMs: 250 } as const;

/** Most nodes one list may name: a seed list, not an inventory. */
const MAX_NODES = 32;

/**
 * Undefined (everything kept in process) unless REDIS_URL, REDIS_SENTINELS or
 * REDIS_CLUSTER_NODES (or their `_FILE` forms) is set. Setting more than one,
 * or only part of a topology, is a problem naming what is missing or extra.
 */
export function readRedis(reader: EnvReader): RedisConfig | undefined {
  const keyPrefix =
    reader.matching('REDIS_KEY_PREFIX', /^[\w.:{}-]{1,100}$/, '1 to 100 letters, digits or _ . : - { }') ?? REDIS_DEFAULTS.keyPrefix;
  const timeoutMs = reader.integer('REDIS_TIMEOUT_MS', { min: 1, max: 60_000 }) ?? REDIS_DEFAULTS.timeoutMs;
  const chosen = (['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES'] as const).filter((name) => reader.isSetOrFile(name));
  if (chosen.length > 1) {
    reader.problem(`${chosen.join(' and ')} are ${chosen.length === 2 ? 'both' : 'all'} set: set only one way to reach Redis`);
    return undefined;
  }
  reportStrays(reader, chosen[0]);
  if (chosen.length === 0) return undefined;
  const tls = readTls(reader);
  const common = { keyPrefix, timeoutMs, ...(tls === undefined ? {} : { tls }) };
  switch (chosen[0]) {
    case 'REDIS_URL':
      return withUrl(reader, common);
    case 'REDIS_SENTINELS':
      return withSentinels(reader, common);
    case 'REDIS_CLUSTER_NODES':
      return withCluster(reader, common);
  }
}

/** Variables that only mean something with one topology: set without it, they would be silently ignored. */
function reportStrays(reader: EnvReader, chosen: string | undefined): void {
  const onlyWith: [string, string[]][] = [
    ['REDIS_SENTINEL_NAME', ['REDIS_SENTINELS']],
    ['REDIS_SENTINEL_PASSWORD', ['REDIS_SENTINELS']],
    ['REDIS_PASSWORD', ['REDIS_SENTINELS', 'REDIS_CLUSTER_NODES']],
    ['REDIS_TLS', ['REDIS_SENTINELS', 'REDIS_CLUSTER_NODES']],
    ['REDIS_TLS_CA', ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES']],
    ['REDIS_TLS_CERT', ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES']],
    ['REDIS_TLS_KEY', ['REDIS_URL', 'REDIS_SENTINELS', 'REDIS_CLUSTER_NODES']],
  ];
  for (const [name, topologies] of onlyWith) {
    if (!reader.isSetOrFile(name) || (chosen !== undefined && topologies.includes(chosen))) continue;
    const where = chosen === undefined ? `without ${topologies.join(' or ')}` : `with ${chosen}`;
    reader.problem(`${name} is set but means nothing ${where}: set ${topologies.join(' or ')}, or unset it`);
  }
}

function withUrl(reader: EnvReader, common: RedisCommonConfig): RedisUrlConfig | undefined {
  const fromFile = reader.isSet('REDIS_URL_FILE');
  const value = reader.valueOrFile('REDIS_URL');
  if (value === undefined) return undefined;
  const url = reader.secretUrl(
    fromFile ? 'REDIS_URL (read from REDIS_URL_FILE)' : 'REDIS_URL',
    value,
    ['redis:', 'rediss:'],
    'a redis:// or rediss:// URL with a host (e.g. rediss://:password@redis.internal:6379/0)',
  );
  if (url === undefined) return undefined;
  if (common.tls !== undefined && !url.startsWith('rediss:')) {
    reader.problem('REDIS_TLS_* files are set but REDIS_URL is not a rediss:// URL: TLS would not be used');
    return undefined;
  }
  return { ...common, url: new Secret(url) };
}

function withSentinels(reader: EnvReader, common: RedisCommonConfig): RedisSentinelConfig | undefined {
  const nodes = readNodes(reader, 'REDIS_SENTINELS');
  const name = reader.matching('REDIS_SENTINEL_NAME', /^[\w.-]{1,100}$/, '1 to 100 letters, digits or _ . -');
  if (!reader.isSet('REDIS_SENTINEL_NAME')) {
    reader.problem(
      "REDIS_SENTINELS is set but REDIS_SENTINEL_NAME is missing: set it to the primary's group name (sentinel monitor <name> …)",
    );
  }
  const sentinelPassword = secret(reader, 'REDIS_SENTINEL_PASSWORD');
  const password = secret(reader, 'REDIS_PASSWORD');
  if (nodes === undefined || name === undefined) return undefined;
  return {
    ...common,
    sentinel: {
      nodes,
      name,
      ...(sentinelPassword === undefined ? {} : { sentinelPassword }),
      ...(password === undefined ? {} : { password }),
    },
  };
}

function withCluster(reader: EnvReader, common: RedisCommonConfig): RedisClusterConfig | undefined {
  const nodes = readNodes(reader, 'REDIS_CLUSTER_NODES');
  const password = secret(reader, 'REDIS_PASSWORD');
  if (nodes === undefined) return undefined;
  return { ...common, cluster: { nodes, ...(password === undefined ? {} : { password }) } };
}

/** `host:port,host:port` (IPv6 as `[::1]:26379`); the list holds no secret, so a bad entry is quoted. */
function readNodes(reader: EnvReader, name: string): RedisNode[] | undefined {
  const value = reader.valueOrFile(name);
  if (value === undefined) return undefined;
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const nodes = entries.map(parseNode);
  const bad = entries.filter((_entry, index) => nodes[index] === undefined);
  if (entries.length === 0 || bad.length > 0 || entries.length > MAX_NODES) {
    const got = bad.length > 0 ? ` (not host:port: ${bad.map((entry) => JSON.stringify(entry)).join(', ')})` : '';
    reader.problem(`${name} must be 1 to ${MAX_NODES} comma-separated host:port addresses${got}`);
    return undefined;
  }
  return nodes as RedisNode[];
}

function parseNode(entry: string): RedisNode | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[\w.-]+):(\d{1,5})$/.exec(entry);
  if (match === null) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return undefined;
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}

function secret(reader: EnvReader, name: string): Secret | undefined {
  const value = reader.valueOrFile(name);
  return value === undefined ? undefined : new Secret(value);
}

/**
 * REDIS_TLS=true (Sentinel and Cluster: a REDIS_URL says it with `rediss://`),
 * REDIS_TLS_CA_FILE, REDIS_TLS_CERT_FILE and REDIS_TLS_KEY_FILE (or the PEM
 * itself in REDIS_TLS_CA, …). A file that cannot be read, or that holds no
 * PEM block, is a problem naming the variable and the path, never the content.
 */
function readTls(reader: EnvReader): RedisTlsConfig | undefined {
  const enabled = reader.boolean('REDIS_TLS');
  const ca = pem(reader, 'REDIS_TLS_CA');
  const cert = pem(reader, 'REDIS_TLS_CERT');
  const key = pem(reader, 'REDIS_TLS_KEY');
  if (reader.isSetOrFile('REDIS_TLS_CERT') !== reader.isSetOrFile('REDIS_TLS_KEY')) {
    reader.problem('REDIS_TLS_CERT_FILE and REDIS_TLS_KEY_FILE go together: set both (the client certificate and its key) or neither');
    return undefined;
  }
  const files = ca !== undefined || cert !== undefined || key !== undefined;
  if (enabled === false && files) {
    reader.problem('REDIS_TLS is false but REDIS_TLS_* files are set: unset them, or set REDIS_TLS=true');
    return undefined;
  }
  if (!files) return enabled === true ? {} : undefined;
  return {
    ...(ca === undefined ? {} : { ca }),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key: new Secret(key) }),
  };
}

function pem(reader: EnvReader, name: string): string | undefined {
  const value = reader.valueOrFile(name);
  if (value === undefined) return undefined;
  if (/-----BEGIN [A-Z0-9 ]+-----/.test(value)) return value;
  const path = reader.raw(`${name}_FILE`);
  reader.problem(path === undefined ? `${name} does not hold a PEM block` : `${name}_FILE does not hold a PEM block: ${path}`);
  return undefined;
}

/** The shared state's settings that no environment variable changes, each written once. */
export const REDIS_STATE_DEFAULTS = Object.freeze({
  /** The one gate to Redis (redis/connection/sharedRedis.ts). */
  sharedRedis: Object.freeze({
    /** While degraded, a reminder at most once per this interval (each outage's first warning is always logged). */
    warnIntervalMs: 30_000,
    /** After a failure, Redis is not asked again for this long (unless it reconnects), so a slow Redis costs one timeout, not one per call. */
    retryAfterMs: 1_000,
  }),
  /** Claims on an answer being fetched by one replica (redis/upstream/redisAnswerStore.ts). */
  answerFill: Object.freeze({
    /** How long a claim outlives a replica that stopped renewing it (crashed, cut off); at most the fill wait. */
    leaseMs: 2_000,
    /** How often a replica waiting for another's fill looks for the answer or the claim's release. */
    pollMs: 20,
  }),
  /** The reporting token shared by every replica (redis/upstream/redisTokenExchange.ts). */
  tokenExchange: Object.freeze({
    /** How often a replica waiting for another one's sign-in looks for the new token. */
    pollMs: 25,
  }),
  /** Apollo Server's cache of persisted queries (redis/connection/apolloCache.ts). */
  apolloCache: Object.freeze({
    /** How long an entry Apollo sets without a TTL (a persisted query) is kept: under `noeviction` every key must end by itself. */
    defaultTtlMs: 24 * 3_600_000,
    /** The in-process LRU used while Redis is away holds at most this many characters of queries (InMemoryLRUCache's measure of a string). */
    localMaxSize: 16 * 1024 * 1024,
  }),
});
