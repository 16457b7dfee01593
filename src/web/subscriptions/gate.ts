import type { IncomingMessage } from 'node:http';

/**
 * Who may open a WebSocket for subscriptions: the seam where the caller
 * check (CALLER_AUTH: the same proof, scopes and sites as the queries) runs
 * for sockets. Two points, as graphql-ws intends:
 * - `admitUpgrade`: the HTTP upgrade request, before any socket exists
 *   (headers such as `Authorization` a router forwards); a refusal is an
 *   HTTP status, like any refused request in web/.
 * - `admitConnection`: the client's `connection_init` payload (connection
 *   params, where browsers put tokens); `{ refused }` closes the socket with
 *   4403 and that reason. What it admits is the connection's admission,
 *   handed to every subscription's context (`contextFor`), so the GraphQL
 *   rules (scopes, sites) read it as they read an HTTP request's caller.
 */
export interface SubscriptionGate<Admission> {
  admitUpgrade(request: IncomingMessage): Promise<UpgradeRefusal | undefined>;
  admitConnection(
    request: IncomingMessage,
    connectionParams: Readonly<Record<string, unknown>> | undefined,
  ): Promise<ConnectionAdmission<Admission>>;
}

export interface UpgradeRefusal {
  status: number;
  /** Named in the JSON body's `extensions.code`: UNAUTHENTICATED for a 401, as the HTTP gate answers. */
  code: string;
  message: string;
}

/**
 * The connection's admission, or why it is closed (4403; the reason names the problem, never a secret). `expiresAt`
 * (ms since the epoch): when the proof it was admitted with (a JWT's `exp`) expires, the socket is closed with 4403.
 */
export type ConnectionAdmission<Admission> = { admitted: Admission; expiresAt?: number } | { refused: string };
