/**
 * A failover behind one endpoint: a proxy (standing in for a managed
 * service's DNS name) moves to the promoted replica, while the connection
 * the client already holds still reaches the old primary, now a replica that
 * answers writes with READONLY. The client reconnects on that answer.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { createRedisClient, waitUntilReady } from '../../src/redis/connection/client';
import { Secret } from '../../src/redaction/secret';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';
import { waitFor } from '../support/redisSentinel';

/** A TCP proxy to `target()`, read at each new connection, as a DNS name moved by a failover would be. */
function startProxy(target: () => number): Promise<{ port: number; server: Server; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    const outbound = connect(target(), '127.0.0.1');
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => sockets.delete(socket));
    }
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ port: typeof address === 'object' && address !== null ? address.port : 0, server, sockets });
    }),
  );
}

describeWithRedis('a failover behind one endpoint (READONLY)', () => {
  let primary: RedisServer;
  let replica: RedisServer;

  beforeAll(async () => {
    primary = await startRedisServer();
    replica = await startRedisServer({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
  });
  afterAll(async () => {
    await Promise.all([primary?.close(), replica?.close()]);
  });

  test('a write answered READONLY by the old primary makes the client reconnect to the new one', async () => {
    let target = primary.port;
    const proxy = await startProxy(() => target);
    const admin = (server: RedisServer) => new Redis({ host: '127.0.0.1', port: server.port, lazyConnect: true });
    const [onPrimary, onReplica] = [admin(primary), admin(replica)];
    const client = createRedisClient({ url: new Secret(`redis://127.0.0.1:${proxy.port}`), keyPrefix: 'ro:', timeoutMs: 1_000 });
    try {
      expect(await waitUntilReady(client, 5_000)).toBe(true);
      await client.set('key', 'before');
      await waitFor(async () => (await onReplica.get('ro:key')) === 'before', 'the replica to copy the write');

      // The failover: the replica is promoted, the old primary follows it, the endpoint moves.
      await onReplica.replicaof('NO', 'ONE');
      await onPrimary.replicaof('127.0.0.1', replica.port);
      target = replica.port;
      let timer: NodeJS.Timeout | undefined;
      const reconnected = new Promise<void>((resolve, reject) => {
        client.once('ready', () => resolve());
        timer = setTimeout(() => reject(new Error('the client did not reconnect within 10 s of READONLY')), 10_000);
      }).finally(() => clearTimeout(timer));

      await expect(client.set('key', 'refused')).rejects.toThrow(/READONLY/);
      await reconnected;
      await client.set('key', 'after');

      await expect(onReplica.get('ro:key')).resolves.toBe('after');
    } finally {
      client.disconnect();
      onPrimary.disconnect();
      onReplica.disconnect();
      for (const socket of proxy.sockets) socket.destroy();
      await new Promise((resolve) => proxy.server.close(resolve));
    }
  });
});
