import { Agent } from 'undici';
import { UPSTREAM_PATH_DEFAULTS } from '../../config/upstreamPath';

export interface AgentOptions {
  /** Upper bound of open sockets per upstream origin; further requests queue in the agent. */
  connections: number;
}

/**
 * The one connection pool of the process (created by createUpstreams). Reusing
 * keep-alive sockets saves a TCP (and TLS) handshake per upstream call, and the
 * bound keeps a burst of GraphQL requests from opening unbounded sockets.
 */
export function createAgent(options: AgentOptions): Agent {
  return new Agent({
    connections: options.connections,
    keepAliveTimeout: UPSTREAM_PATH_DEFAULTS.keepAlive.timeoutMs,
    keepAliveMaxTimeout: UPSTREAM_PATH_DEFAULTS.keepAlive.maxTimeoutMs,
  });
}
