import type { Caller } from '../../auth/callers/caller';
import { describeRefusal, type CallerGate } from '../callerGate';
import type { SubscriptionGate } from './gate';

/**
 * CALLER_AUTH for WebSocket subscriptions, from the same CallerGate as the
 * HTTP requests: header proofs on the upgrade (401, as the HTTP gate), the
 * bearer token on the upgrade or in the connection params (4403 naming the
 * problem). The admitted Caller is every subscription's caller, so the
 * scopes and sites are checked at subscribe time as for a query; a socket
 * admitted with a JWT ends when the token expires (4403).
 */
export function callerSubscriptionGate(gate: CallerGate): SubscriptionGate<Caller> {
  return {
    admitUpgrade: async (request) => {
      const refusal = await gate.admitSocketUpgrade(request);
      return refusal === undefined ? undefined : { status: refusal.status, ...describeRefusal(refusal) };
    },
    admitConnection: async (request, connectionParams) => {
      const admission = await gate.admitSocketConnection(request, connectionParams);
      if ('problem' in admission) return { refused: `caller not authenticated: ${admission.problem}` };
      return { admitted: admission.caller, ...(admission.expiresAt === undefined ? {} : { expiresAt: admission.expiresAt }) };
    },
  };
}
