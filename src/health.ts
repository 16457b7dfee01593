import { Router } from 'express';

/** Where the server is in its life: only `ready` takes traffic. */
export type Lifecycle = 'starting' | 'ready' | 'stopping';

/**
 * `/health/live`: the process runs (a failing liveness probe restarts it).
 * `/health/ready`: send traffic here (Apollo started, upstreams configured,
 * not shutting down); 503 otherwise, so a load balancer drains us first.
 */
export function createHealthRouter(lifecycle: () => Lifecycle, redisMode?: () => string): Router {
  const router = Router();
  router.get('/health/live', (_request, response) => {
    response.status(200).json({ status: 'live' });
  });
  router.get('/health/ready', (_request, response) => {
    const state = lifecycle();
    // Redis is never a readiness condition: without it every replica serves from its own state (`degraded`).
    const redis = redisMode === undefined ? {} : { redis: redisMode() };
    response.status(state === 'ready' ? 200 : 503).json({ status: state, ...redis });
  });
  return router;
}
