import type { IncomingMessage } from 'node:http';

/**
 * Who may open a WebSocket for subscriptions: the seam where the caller
 * check (CALLER_AUTH: the same proof, scopes and sites as the queries) runs
 * for sockets. Two points, as graphql-ws intends:
 * - `admitUpgrade`: the HTTP upgrade request, before any socket exists
 *   (headers such as `Authorization` a router forwards); a refusal is an
 *   HTTP status, like any refused request in web/.
 * - `admitConnection`: the client's `connection_init` payload (connection
 *   params, where browsers put tokens); `undefined` closes the socket with
 *   4403 Forbidden. What it returns is the connection's admission, handed
 *   to every subscription's context (`contextFor`), so the GraphQL rules
 *   (scopes, sites) read it as they read an HTTP request's caller.
 */
export interface SubscriptionGate<Admission> {
  admitUpgrade(request: IncomingMessage): Promise<UpgradeRefusal | undefined>;
  admitConnection(
    request: IncomingMessage,
    connectionParams: Readonly<Record<string, unknown>> | undefined,
  ): Promise<Admission | undefined>;
}

export interface UpgradeRefusal {
  status: number;
  message: string;
}

/** No caller check configured: every socket is admitted, as every HTTP request is. */
export const OPEN_GATE: SubscriptionGate<Record<string, never>> = {
  admitUpgrade: async () => undefined,
  admitConnection: async () => ({}),
};
