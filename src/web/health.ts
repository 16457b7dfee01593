import type { EventLoopLag } from '../observability/eventLoopLag';
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
 * not shutting down, the event loop not lagging for a while); 503 otherwise,
 * so a load balancer drains us first. A lagging loop is `degraded`: this
 * replica answers everything late, unlike the others (READINESS_MAX_EVENT_LOOP_LAG_MS).
 */
export function createHealthRoutes(
  lifecycle: () => Lifecycle,
  details: ReadinessDetails = {},
  lag?: Pick<EventLoopLag, 'degraded' | 'lastLagMs'>,
): Record<string, RouteHandler> {
  return {
    '/health/live': (request, response) => {
      if (isRead(request, response)) sendJson(response, 200, { status: 'live' });
    },
    '/health/ready': (request, response) => {
      if (!isRead(request, response)) return;
      const lifecycleState = lifecycle();
      const degraded = lifecycleState === 'ready' && lag?.degraded() === true;
      const state = degraded ? 'degraded' : lifecycleState;
      const shown: Record<string, unknown> = degraded ? { eventLoopLagMs: lag?.lastLagMs() } : {};
      for (const [name, read] of Object.entries(details)) shown[name] = read();
      sendJson(response, state === 'ready' ? 200 : 503, { status: state, ...shown });
    },
  };
}
