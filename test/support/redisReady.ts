/**
 * Waiting for a Redis client the way a test needs to: until its `ready`
 * event, failing loudly. The clients run without an offline queue, so a
 * command sent before `ready` fails at once ("Stream isn't writeable and
 * enableOfflineQueue options is false"): a test that went on after a quiet
 * timeout would fail later, somewhere else, for no reason it could name.
 */
import { waitUntilReady, type RedisClient } from '../../src/redis/connection/client';

/** How long a client may take to connect (or reconnect, after a restart: ioredis backs off up to 2 s between attempts) on a busy machine. */
const READY_BOUND_MS = 15_000;

/**
 * Resolves once every client is ready (its `ready` event; at once if it already
 * is). After a restart each client reconnects on its own backoff, so one
 * client's readiness says nothing of another's: await each one the test uses.
 */
export async function awaitReady(...clients: RedisClient[]): Promise<void> {
  const ready = await Promise.all(clients.map((client) => waitUntilReady(client, READY_BOUND_MS)));
  const late = clients.filter((_client, index) => !ready[index]).map((client) => client.status);
  if (late.length > 0) throw new Error(`${late.length} Redis client(s) not ready within ${READY_BOUND_MS} ms (status ${late.join(', ')})`);
}
