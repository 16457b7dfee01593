import type { EnvReader } from './env';

/** Live numbers (docs/subscriptions.md): how many subscriptions a replica carries, and how far a slow one may fall behind. */
export interface SubscriptionsConfig {
  /** MAX_SUBSCRIPTIONS: open subscriptions on this replica, every transport counted. */
  maxSubscriptions: number;
  /** MAX_SUBSCRIPTIONS_PER_CONNECTION: open subscriptions on one WebSocket. */
  maxPerConnection: number;
  /**
   * SUBSCRIPTION_STARTS_PER_SECOND: subscriptions one WebSocket may start a
   * second, after a burst of MAX_SUBSCRIPTIONS_PER_CONNECTION (a screen
   * subscribes all it shows at once); past it a start is refused before
   * Apollo's pipeline, so a subscribe flood costs a frame's parse, not a start.
   */
  startsPerSecond: number;
  /**
   * SUBSCRIPTION_MAX_BUFFERED_BYTES: bytes a WebSocket may have waiting to be
   * sent; past it the consumer is too slow and is dropped, before its backlog
   * grows the replica's memory.
   */
  maxBufferedBytes: number;
  /** MAX_SOCKETS: open WebSockets on this replica (with or without subscriptions); over it an upgrade is refused (503). */
  maxSockets: number;
  /**
   * SUBSCRIPTION_IDLE_TIMEOUT_SECONDS: how long an acknowledged WebSocket may
   * carry no subscription before it is closed (each costs memory and a slot
   * of MAX_SOCKETS; a client with nothing to follow reconnects when it has).
   */
  idleTimeoutMs: number;
  /**
   * SUBSCRIPTION_KEEPALIVE_SECONDS: how often each WebSocket is pinged and
   * checked: a socket that left the last ping unanswered (its client stopped
   * reading) or holds more than SUBSCRIPTION_MAX_BUFFERED_BYTES unsent is dropped.
   */
  keepAliveMs: number;
  /**
   * SUBSCRIPTION_CALLBACK_URLS: where Apollo's callback protocol may POST.
   * A subscription names its own `callbackUrl`, so without this list any
   * admitted caller could make the subgraph send requests anywhere (SSRF).
   */
  callbackUrls: readonly CallbackUrlRule[];
}

/**
 * One allowed callback destination: a URL prefix (scheme, host and port
 * exact, the path a prefix on a `/` boundary), a host (any scheme and path;
 * its port exact when given), or every loopback address.
 */
export type CallbackUrlRule =
  | { kind: 'prefix'; protocol: string; host: string; path: string }
  | { kind: 'host'; hostname: string; port?: string }
  | { kind: 'loopback' };

/** Unset outside production: the router on the same machine (development, tests). In production: none until configured. */
const LOOPBACK_ONLY: readonly CallbackUrlRule[] = Object.freeze([{ kind: 'loopback' }]);

export const DEFAULT_SUBSCRIPTIONS_CONFIG: SubscriptionsConfig = Object.freeze({
  maxSubscriptions: 10_000,
  // A screen shows a few rankings and panels; a router multiplexes its clients' subscriptions on one socket per
  // client connection (passthrough), so 100 is far above one screen's need and far below the replica's cap.
  maxPerConnection: 100,
  // A screen changes what it shows at a person's pace: 10 new subscriptions a second, after its burst, is no screen's.
  startsPerSecond: 10,
  // About a hundred emissions of a big ranking: a healthy client never has that much unread.
  maxBufferedBytes: 1024 * 1024,
  // One socket per subscription is the most a router's passthrough opens: as many as MAX_SUBSCRIPTIONS.
  maxSockets: 10_000,
  idleTimeoutMs: 30_000,
  // graphql-ws's own interval: a client that stops reading is dropped within two of them.
  keepAliveMs: 12_000,
  callbackUrls: LOOPBACK_ONLY,
});

export function readSubscriptions(reader: EnvReader, production: boolean): SubscriptionsConfig {
  return {
    maxSubscriptions: reader.integer('MAX_SUBSCRIPTIONS', { min: 0, max: 1_000_000 }) ?? DEFAULT_SUBSCRIPTIONS_CONFIG.maxSubscriptions,
    maxPerConnection:
      reader.integer('MAX_SUBSCRIPTIONS_PER_CONNECTION', { min: 1, max: 100_000 }) ?? DEFAULT_SUBSCRIPTIONS_CONFIG.maxPerConnection,
    startsPerSecond:
      reader.integer('SUBSCRIPTION_STARTS_PER_SECOND', { min: 1, max: 100_000 }) ?? DEFAULT_SUBSCRIPTIONS_CONFIG.startsPerSecond,
    maxBufferedBytes:
      reader.integer('SUBSCRIPTION_MAX_BUFFERED_BYTES', { min: 1_024, max: 1024 ** 3 }) ?? DEFAULT_SUBSCRIPTIONS_CONFIG.maxBufferedBytes,
    maxSockets: reader.integer('MAX_SOCKETS', { min: 0, max: 1_000_000 }) ?? DEFAULT_SUBSCRIPTIONS_CONFIG.maxSockets,
    idleTimeoutMs:
      seconds(reader.integer('SUBSCRIPTION_IDLE_TIMEOUT_SECONDS', { min: 1, max: 3_600 })) ?? DEFAULT_SUBSCRIPTIONS_CONFIG.idleTimeoutMs,
    keepAliveMs:
      seconds(reader.integer('SUBSCRIPTION_KEEPALIVE_SECONDS', { min: 1, max: 300 })) ?? DEFAULT_SUBSCRIPTIONS_CONFIG.keepAliveMs,
    callbackUrls: readCallbackUrls(reader, production),
  };
}

function seconds(value: number | undefined): number | undefined {
  return value === undefined ? undefined : value * 1000;
}

const CALLBACK_URLS = 'SUBSCRIPTION_CALLBACK_URLS';

/** Comma-separated: `https://router.internal:4000/callback` (a prefix), `router.internal[:port]` (a host), `loopback`, or `none`. */
function readCallbackUrls(reader: EnvReader, production: boolean): readonly CallbackUrlRule[] {
  const raw = reader.raw(CALLBACK_URLS);
  if (raw === undefined || raw.trim() === '') return production ? [] : LOOPBACK_ONLY;
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 1 && entries[0].toLowerCase() === 'none') return [];
  const rules: CallbackUrlRule[] = [];
  for (const entry of entries) {
    const rule = callbackUrlRule(entry);
    if (rule === undefined) {
      reader.problem(
        `${CALLBACK_URLS} entries must be http(s) URL prefixes without credentials, hosts (host or host:port), loopback, or none alone (got ${JSON.stringify(entry)})`,
      );
    } else rules.push(rule);
  }
  return rules;
}

function callbackUrlRule(entry: string): CallbackUrlRule | undefined {
  if (entry.toLowerCase() === 'loopback') return { kind: 'loopback' };
  if (entry.includes('://')) {
    const url = parseUrl(entry);
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
    if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return undefined;
    return { kind: 'prefix', protocol: url.protocol, host: url.host, path: url.pathname };
  }
  const url = parseUrl(`http://${entry}`);
  if (url === undefined || url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    return undefined;
  }
  // `new URL` drops a scheme's default port (80 here): given explicitly, it is kept as given.
  const port = /:(\d+)$/.exec(entry)?.[1];
  return { kind: 'host', hostname: url.hostname, ...(port === undefined ? {} : { port }) };
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
