import { Agent } from 'undici';
import { UPSTREAM_PATH_DEFAULTS } from '../../config/upstreamPath';

export interface AgentOptions {
  /** Upper bound of open sockets per upstream origin; further requests queue in the agent. */
  connections?: number;
  /** How long an idle keep-alive socket is kept for reuse. */
  keepAliveTimeoutMs?: number;
}

/**
 * The one connection pool of the process (created by createUpstreams). Reusing
 * keep-alive sockets saves a TCP (and TLS) handshake per upstream call, and the
 * bound keeps a burst of GraphQL requests from opening unbounded sockets.
 */
export function createAgent(options: AgentOptions = {}): Agent {
  return new Agent({
    // createUpstreams always gives the configured number; only tests leave it out.
    connections: options.connections ?? UPSTREAM_PATH_DEFAULTS.connectionsPerOrigin,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
    keepAliveMaxTimeout: 60_000,
  });
}
