import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisClusterConfig, RedisConfig, RedisSentinelConfig, RedisTlsConfig, RedisUrlConfig } from '../../config';

/** What the shared state talks to: one connection (plain, TLS, or through Sentinel), or a cluster of them. */
export type RedisClient = Redis | Cluster;

/** Reconnection never stops: Redis coming back must bring the replicas back to shared state by itself. */
const MAX_RECONNECT_DELAY_MS = 2_000;

/**
 * One ioredis client per process for all shared state. Commands never
 * queue while Redis is away (`enableOfflineQueue: false`) and never wait
 * longer than the configured timeout: a missing or slow Redis must cost an
 * operation at most that timeout before the local fallback answers.
 */
export function createRedisClient(config: RedisUrlConfig): Redis;
export function createRedisClient(config: RedisConfig): RedisClient;
export function createRedisClient(config: RedisConfig): RedisClient {
  if ('sentinel' in config) return reconnectAfterUnplannedEnd(new Redis({ ...connectionOptions(config), ...sentinelOptions(config) }));
  if ('cluster' in config) return createCluster(config);
  return new Redis(config.url.reveal(), connectionOptions(config));
}

/** Every connection's options, the cluster's nodes' included. */
function connectionOptions(config: RedisConfig): RedisOptions {
  return {
    keyPrefix: config.keyPrefix,
    // A backstop only: SharedRedis applies REDIS_TIMEOUT_MS itself (see withinTimeout); this frees commands a dead socket would hold.
    commandTimeout: Math.max(10_000, config.timeoutMs * 10),
    connectTimeout: Math.max(1_000, config.timeoutMs * 4),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // How long `disconnect` waits for the socket's close before destroying it. ioredis waits for it even when the
    // socket closed long before (Redis went away), and that timer holds the process: 2 s by default, longer than
    // a test runner's worker is given to exit (jest: "a worker process has failed to exit gracefully").
    disconnectTimeout: 200,
    retryStrategy: reconnectDelay,
    reconnectOnError: isReadOnlyReplica,
    ...(config.tls === undefined ? {} : { tls: tlsOptions(config.tls) }),
  };
}

const reconnectDelay = (attempt: number): number => Math.min(50 * 2 ** Math.min(attempt, 6), MAX_RECONNECT_DELAY_MS);

/**
 * After a failover behind one endpoint (a DNS name or a proxy that moved to
 * the new primary), a connection kept to the old primary, now a replica,
 * answers every write with READONLY: reconnecting reaches the new primary.
 * The refused command itself fails (the caller falls back once).
 */
function isReadOnlyReplica(error: Error): boolean {
  return error.message.startsWith('READONLY');
}

function sentinelOptions({ sentinel, tls, timeoutMs }: RedisSentinelConfig): RedisOptions {
  return {
    sentinels: sentinel.nodes,
    name: sentinel.name,
    role: 'master',
    ...(sentinel.sentinelPassword === undefined ? {} : { sentinelPassword: sentinel.sentinelPassword.reveal() }),
    ...(sentinel.password === undefined ? {} : { password: sentinel.password.reveal() }),
    // Told of a failover by the sentinels (+switch-master) rather than by the old primary's errors: a faster switch.
    failoverDetector: true,
    sentinelRetryStrategy: reconnectDelay,
    // The sentinels are asked before each (re)connection: as patient as a connection attempt.
    sentinelCommandTimeout: Math.max(1_000, timeoutMs * 4),
    ...(tls === undefined ? {} : { enableTLSForSentinelMode: true, sentinelTLS: tlsOptions(tls) }),
  };
}

/**
 * Every key carries the prefix, so a prefix with a hash tag puts every key in
 * one slot: multi-key commands (MGET, MULTI) and Lua scripts over several keys
 * then never meet CROSSSLOT. A prefix without one gets one here (`{prefix}`).
 * The price: one primary holds all of this deployment's shared state, which
 * is small (a token, budgets, answers with a TTL).
 */
function createCluster(config: RedisClusterConfig): Cluster {
  const { keyPrefix: _ignored, ...nodeOptions } = connectionOptions(config);
  const options: ClusterOptions = {
    keyPrefix: hashTagged(config.keyPrefix),
    enableOfflineQueue: false,
    clusterRetryStrategy: reconnectDelay,
    slotsRefreshTimeout: Math.max(1_000, config.timeoutMs * 4),
    redisOptions: {
      ...nodeOptions,
      ...(config.cluster.password === undefined ? {} : { password: config.cluster.password.reveal() }),
    },
  };
  return new Cluster(config.cluster.nodes, options);
}

/** `prefix` if it already holds the hash tag Redis Cluster hashes on (the first `{…}`, not empty), else the whole prefix as the tag. */
export function hashTagged(prefix: string): string {
  const open = prefix.indexOf('{');
  const close = open < 0 ? -1 : prefix.indexOf('}', open + 1);
  return close > open + 1 ? prefix : `{${prefix}}`;
}

function tlsOptions(tls: RedisTlsConfig): ConnectionOptions {
  return {
    ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    ...(tls.cert === undefined ? {} : { cert: tls.cert }),
    ...(tls.key === undefined ? {} : { key: tls.key.reveal() }),
  };
}

/** Resolves when the client is ready or `withinMs` passed, whichever comes first: start-up never waits on a missing Redis. */
export function waitUntilReady(client: RedisClient, withinMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), withinMs);
    client.once('ready', onReady);
  });
}

/** The clients this process closed: any other end of a client is ioredis giving up, which reconnectAfterUnplannedEnd undoes. */
const closedOnPurpose = new WeakSet<RedisClient>();

/**
 * ioredis (6.0) gives up on a Sentinel client for good when the failover
 * notice (+switch-master, heard by `failoverDetector`) arrives while a
 * reconnection is asking a sentinel for the primary: the notice marks the
 * connection closed, the reconnection then fails ("Connection is closed"),
 * and the client ends (status `end`) with no reconnection scheduled. The
 * replica would stay degraded until restarted; the slower the ask (a busy
 * machine), the likelier. Here an end this process did not ask for
 * (closeRedisClient) starts a new connection after the first reconnection delay.
 * Every client that `duplicate`s such a client needs this too.
 */
export function reconnectAfterUnplannedEnd<T extends Redis>(client: T): T {
  client.on('end', () => {
    if (closedOnPurpose.has(client)) return;
    const timer = setTimeout(() => {
      if (client.status === 'end' && !closedOnPurpose.has(client)) client.connect().catch(() => undefined);
    }, reconnectDelay(1));
    timer.unref();
  });
  return client;
}

/**
 * Closes a client for good. A connected one: QUIT (its replies come first),
 * except a Sentinel client, closed at once: only `disconnect` also closes its
 * failover detector's connections to the sentinels, which would keep the
 * process alive. A client whose connection is already gone: `disconnect`
 * stops its reconnecting, but never after a QUIT that closed it (ioredis
 * would wait 2 s for a close that already happened, holding the process).
 */
export async function closeRedisClient(client: RedisClient): Promise<void> {
  closedOnPurpose.add(client);
  if (client.status === 'end') return;
  const sentinel = client instanceof Redis && (client.options.sentinels?.length ?? 0) > 0;
  if (client.status === 'ready' && !sentinel) {
    try {
      await client.quit();
      return;
    } catch {
      // Gone meanwhile: disconnect below.
    }
  }
  client.disconnect();
}
