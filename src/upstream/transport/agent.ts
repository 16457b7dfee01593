import { Agent } from 'undici';

export interface AgentOptions {
  /** Upper bound of open sockets per upstream origin; further requests queue in the agent. */
  connections?: number;
  /** How long an idle keep-alive socket is kept for reuse. */
  keepAliveTimeoutMs?: number;
}

/**
 * Sized for the load: 50 operations in flight with a render.json call each,
 * plus a router's `_entities` batches (up to RENDER_MAX_CONCURRENCY calls per
 * operation), must not queue for a socket in our own pool.
 */
const DEFAULT_CONNECTIONS_PER_ORIGIN = 128;

/**
 * The one connection pool of the process (created by createUpstreams). Reusing
 * keep-alive sockets saves a TCP (and TLS) handshake per upstream call, and the
 * bound keeps a burst of GraphQL requests from opening unbounded sockets.
 */
export function createAgent(options: AgentOptions = {}): Agent {
  return new Agent({
    connections: options.connections ?? DEFAULT_CONNECTIONS_PER_ORIGIN,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
    keepAliveMaxTimeout: 60_000,
  });
}
