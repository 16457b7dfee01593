import { isRead, sendJson, type RouteHandler } from './web/respond';

/** Where the server is in its life: only `ready` takes traffic. */
export type Lifecycle = 'starting' | 'ready' | 'stopping';

/**
 * `/health/live`: the process runs (a failing liveness probe restarts it).
 * `/health/ready`: send traffic here (Apollo started, upstreams configured,
 * not shutting down); 503 otherwise, so a load balancer drains us first.
 */
export function createHealthRoutes(lifecycle: () => Lifecycle, redisMode?: () => string): Record<string, RouteHandler> {
  return {
    '/health/live': (request, response) => {
      if (isRead(request, response)) sendJson(response, 200, { status: 'live' });
    },
    '/health/ready': (request, response) => {
      if (!isRead(request, response)) return;
      const state = lifecycle();
      // Redis is never a readiness condition: without it every replica serves from its own state (`degraded`).
      const redis = redisMode === undefined ? {} : { redis: redisMode() };
      sendJson(response, state === 'ready' ? 200 : 503, { status: state, ...redis });
    },
  };
}
