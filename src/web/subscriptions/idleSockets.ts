import type { WebSocket } from 'ws';

/** 1000 Normal Closure: graphql-ws clients with no subscription do not reconnect on it; one with something to follow does. */
const IDLE_CLOSE_CODE = 1000;

/**
 * Acknowledged sockets that carry no subscription, closed once they stayed
 * so for SUBSCRIPTION_IDLE_TIMEOUT_SECONDS: an idle socket costs memory and
 * a place under MAX_SOCKETS, and follows nothing. The clock starts at the
 * acknowledgement and again each time the socket's last subscription ends;
 * a new subscription stops it.
 */
export class IdleSockets {
  private readonly timers = new WeakMap<WebSocket, NodeJS.Timeout>();

  constructor(
    private readonly idleTimeoutMs: number,
    /** Whether the socket carries (or is starting) a subscription now. */
    private readonly carriesSubscriptions: (socket: WebSocket) => boolean,
    private readonly onIdleClose: () => void,
  ) {}

  /** The socket has no subscription (acknowledged, or one just ended): closed after the timeout unless one starts. */
  watch(socket: WebSocket): void {
    this.stop(socket);
    const timer = setTimeout(() => {
      this.timers.delete(socket);
      if (socket.readyState !== socket.OPEN || this.carriesSubscriptions(socket)) return;
      this.onIdleClose();
      socket.close(IDLE_CLOSE_CODE, `Idle: no subscription for ${this.idleTimeoutMs / 1000} s (SUBSCRIPTION_IDLE_TIMEOUT_SECONDS)`);
    }, this.idleTimeoutMs);
    timer.unref();
    this.timers.set(socket, timer);
  }

  /** After a subscription ended (graphql-ws forgets it right after its hooks): watched again if it was the last. */
  ended(socket: WebSocket): void {
    setImmediate(() => {
      if (socket.readyState === socket.OPEN && !this.carriesSubscriptions(socket)) this.watch(socket);
    });
  }

  stop(socket: WebSocket): void {
    const timer = this.timers.get(socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.timers.delete(socket);
  }
}
