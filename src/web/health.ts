import { isRead, sendJson, type RouteHandler } from './respond';

/** Where the server is in its life: only `ready` takes traffic; `stopping` still serves while load balancers move away. */
export type Lifecycle = 'starting' | 'ready' | 'stopping';

/**
 * Named facts shown in `/health/ready`'s JSON (e.g. `redis: () => 'shared'`,
 * a sign-in backoff state). They inform; they never turn readiness to 503:
 * a vendor refusing us or Redis being away does not make this replica
 * worse than any other.
 */
export type ReadinessDetails = Readonly<Record<string, () => unknown>>;

/**
 * `/health/live`: the process runs (a failing liveness probe restarts it).
 * `/health/ready`: send traffic here (Apollo started, upstreams configured,
 * not shutting down); 503 otherwise, so a load balancer drains us first.
 */
export function createHealthRoutes(lifecycle: () => Lifecycle, details: ReadinessDetails = {}): Record<string, RouteHandler> {
  return {
    '/health/live': (request, response) => {
      if (isRead(request, response)) sendJson(response, 200, { status: 'live' });
    },
    '/health/ready': (request, response) => {
      if (!isRead(request, response)) return;
      const state = lifecycle();
      const shown: Record<string, unknown> = {};
      for (const [name, read] of Object.entries(details)) shown[name] = read();
      sendJson(response, state === 'ready' ? 200 : 503, { status: state, ...shown });
    },
  };
}
