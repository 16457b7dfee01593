/**
 * REDIS_TLS_CA_FILE, REDIS_TLS_CERT_FILE and REDIS_TLS_KEY_FILE against a
 * real redis-server that speaks only TLS and requires client certificates:
 * a private CA and a client certificate made with openssl for the test.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Redis } from 'ioredis';
import { loadConfig, type RedisUrlConfig } from '../../src/config';
import { closeRedisClient, createRedisClient, waitUntilReady } from '../../src/redis/connection/client';
import { describeWithRedis, startRedisServer, type RedisServer } from '../support/redisServer';

const openssl = (args: string[], cwd: string) => promisify(execFile)('openssl', args, { cwd, timeout: 20_000 });

/** A CA, and a server and a client certificate it signed (the server's for 127.0.0.1). */
async function makeCertificates(dir: string): Promise<void> {
  await openssl(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=test-ca'],
    dir,
  );
  writeFileSync(path.join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  for (const [name, extra] of [
    ['server', ['-extfile', 'server.ext']],
    ['client', []],
  ] as const) {
    await openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`], dir);
    await openssl(
      [
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.crt`,
        '-days',
        '1',
        ...extra,
      ],
      dir,
    );
  }
}

describeWithRedis('Redis over TLS with a private CA and a client certificate', () => {
  let dir: string;
  let server: RedisServer;
  const clients: Redis[] = [];
  const file = (name: string) => path.join(dir, name);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'redis-tls-'));
    await makeCertificates(dir);
    server = await startRedisServer({
      password: 'tls-test-pass',
      tls: { certFile: file('server.crt'), keyFile: file('server.key'), caFile: file('ca.crt') },
    });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((client) => closeRedisClient(client)));
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const connect = (env: Record<string, string>) => {
    const config = loadConfig({ REDIS_URL: server.url, REDIS_KEY_PREFIX: 'tls-test:', ...env }).redis as RedisUrlConfig;
    const client = createRedisClient(config);
    clients.push(client);
    return client;
  };
  const firstError = (client: Redis) => new Promise<Error>((resolve) => client.once('error', resolve));

  test('with the CA, the client certificate and its key from their files, commands work', async () => {
    expect(server.url).toMatch(/^rediss:/);
    const client = connect({
      REDIS_TLS_CA_FILE: file('ca.crt'),
      REDIS_TLS_CERT_FILE: file('client.crt'),
      REDIS_TLS_KEY_FILE: file('client.key'),
    });

    expect(await waitUntilReady(client, 10_000)).toBe(true);
    await client.set('greeting', 'over tls');
    await expect(client.get('greeting')).resolves.toBe('over tls');
  });

  test('without the private CA the server is not trusted', async () => {
    const client = connect({ REDIS_TLS_CERT_FILE: file('client.crt'), REDIS_TLS_KEY_FILE: file('client.key') });

    const error = await firstError(client);

    expect(error.message).toMatch(/certificate/i);
    expect(client.status).not.toBe('ready');
  });

  test('without a client certificate the server refuses the connection', async () => {
    const client = connect({ REDIS_TLS_CA_FILE: file('ca.crt') });

    await firstError(client);

    expect(client.status).not.toBe('ready');
  });
});
