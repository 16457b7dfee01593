import { CloseCode } from 'graphql-ws';
import type { WebSocket } from 'ws';

/** What the close says: the client reconnects with a fresh token (docs/subscriptions.md). */
const EXPIRED_TOKEN_REASON = 'caller not authenticated: the token has expired';
/** setTimeout's longest delay (about 24.8 days): a later expiry is reached in several steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Closes a socket with 4403 when the token it was admitted with expires: a
 * socket would otherwise keep receiving events for as long as it stays open.
 * One timer per socket, at `expiresAt` (ms), cleared when the socket closes
 * first; unref'd, so it never holds the process open.
 */
export function closeWhenTokenExpires(socket: WebSocket, expiresAt: number, now: () => number = Date.now): void {
  let timer: NodeJS.Timeout | undefined;
  const check = (): void => {
    const left = expiresAt - now();
    if (left > 0) {
      timer = setTimeout(check, Math.min(left, MAX_TIMER_MS));
      timer.unref();
      return;
    }
    if (socket.readyState === socket.OPEN) socket.close(CloseCode.Forbidden, EXPIRED_TOKEN_REASON);
  };
  socket.once('close', () => clearTimeout(timer));
  check();
}
