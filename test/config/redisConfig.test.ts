import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, type RedisConfig } from '../../src/config';

const urlOf = (redis: RedisConfig | undefined) => (redis !== undefined && 'url' in redis ? redis.url.reveal() : undefined);

function problems(env: NodeJS.ProcessEnv): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected loadConfig to throw a ConfigError');
}

describe('Redis configuration', () => {
  test('unset: everything stays in process', () => {
    expect(loadConfig({ REDIS_KEY_PREFIX: 'other:' }).redis).toBeUndefined();
  });

  test.each(['redis://127.0.0.1:6379', 'rediss://:s3cret@redis.internal:6380/2', 'redis://user:pass@redis.internal'])(
    '%s is accepted, kept secret, with the default prefix and timeout',
    (url) => {
      const redis = loadConfig({ REDIS_URL: url }).redis;
      expect(urlOf(redis)).toBe(url);
      expect(JSON.stringify(redis)).not.toContain(url);
      expect(redis).toMatchObject({ keyPrefix: 'analytics-subgraph:', timeoutMs: 250 });
    },
  );

  test('reads the prefix and the timeout', () => {
    expect(
      loadConfig({ REDIS_URL: 'redis://r:6379', REDIS_KEY_PREFIX: 'team-a:{analytics}:', REDIS_TIMEOUT_MS: '50' }).redis,
    ).toMatchObject({
      keyPrefix: 'team-a:{analytics}:',
      timeoutMs: 50,
    });
  });

  test.each(['http://:pw-in-url@redis.internal:6379', 'redis://', 'not a url :pw-in-url@'])(
    'a bad REDIS_URL is named without echoing its value (%s)',
    (url) => {
      const found = problems({ REDIS_URL: url });
      expect(found).toEqual([expect.stringMatching(/^REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/)]);
      expect(found.join('\n')).not.toContain('pw-in-url');
    },
  );

  test('a bad prefix and timeout are both reported', () => {
    expect(problems({ REDIS_URL: 'redis://r', REDIS_KEY_PREFIX: 'has space', REDIS_TIMEOUT_MS: '0' })).toEqual([
      expect.stringMatching(/^REDIS_KEY_PREFIX must be/),
      expect.stringMatching(/^REDIS_TIMEOUT_MS must be an integer from 1/),
    ]);
  });
});

describe('Redis Sentinel', () => {
  test('sentinels, group name and both passwords (files included), kept secret', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'redis-config-'));
    try {
      const passwordFile = path.join(dir, 'password');
      writeFileSync(passwordFile, 'data-s3cret\n');
      const redis = loadConfig({
        REDIS_SENTINELS: 'sentinel-a:26379, sentinel-b:26380,[::1]:26381',
        REDIS_SENTINEL_NAME: 'analytics',
        REDIS_SENTINEL_PASSWORD: 'sentinel-s3cret',
        REDIS_PASSWORD_FILE: passwordFile,
      }).redis;

      expect(redis).toMatchObject({
        keyPrefix: 'analytics-subgraph:',
        timeoutMs: 250,
        sentinel: {
          nodes: [
            { host: 'sentinel-a', port: 26379 },
            { host: 'sentinel-b', port: 26380 },
            { host: '::1', port: 26381 },
          ],
          name: 'analytics',
        },
      });
      const sentinel = redis !== undefined && 'sentinel' in redis ? redis.sentinel : undefined;
      expect(sentinel?.sentinelPassword?.reveal()).toBe('sentinel-s3cret');
      expect(sentinel?.password?.reveal()).toBe('data-s3cret');
      expect(JSON.stringify(redis)).not.toMatch(/s3cret/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('sentinels without a group name name what is missing', () => {
    expect(problems({ REDIS_SENTINELS: 's:26379' })).toEqual([
      expect.stringMatching(/^REDIS_SENTINELS is set but REDIS_SENTINEL_NAME is missing/),
    ]);
  });

  test.each([
    [{ REDIS_SENTINEL_NAME: 'analytics' }, /^REDIS_SENTINEL_NAME is set but means nothing without REDIS_SENTINELS/],
    [{ REDIS_SENTINEL_PASSWORD: 'pw-secret' }, /^REDIS_SENTINEL_PASSWORD is set but means nothing without REDIS_SENTINELS/],
    [{ REDIS_URL: 'redis://r:6379', REDIS_SENTINEL_NAME: 'analytics' }, /^REDIS_SENTINEL_NAME is set but means nothing with REDIS_URL/],
    [{ REDIS_URL: 'redis://r:6379', REDIS_PASSWORD: 'pw-secret' }, /^REDIS_PASSWORD is set but means nothing with REDIS_URL/],
  ])('a part of a Sentinel set-up without the rest is named (%j)', (env, problem) => {
    const found = problems(env);
    expect(found).toEqual([expect.stringMatching(problem)]);
    expect(found.join('\n')).not.toContain('pw-secret');
  });

  test.each([
    [{ REDIS_URL: 'redis://r:6379', REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_NAME: 'a' }, 'REDIS_URL and REDIS_SENTINELS are both set'],
    [
      { REDIS_SENTINELS: 's:26379', REDIS_SENTINEL_NAME: 'a', REDIS_CLUSTER_NODES: 'n:7000' },
      'REDIS_SENTINELS and REDIS_CLUSTER_NODES are both set',
    ],
    [{ REDIS_URL_FILE: '/run/secrets/url', REDIS_CLUSTER_NODES: 'n:7000' }, 'REDIS_URL and REDIS_CLUSTER_NODES are both set'],
    [
      { REDIS_URL: 'redis://r:6379', REDIS_SENTINELS: 's:26379', REDIS_CLUSTER_NODES: 'n:7000' },
      'REDIS_URL and REDIS_SENTINELS and REDIS_CLUSTER_NODES are all set',
    ],
  ])('two ways to reach Redis at once are refused (%j)', (env, problem) => {
    expect(problems(env)).toEqual([expect.stringContaining(problem)]);
  });

  test.each(['s', 's:0', 's:70000', 'a:1,,b', 'http://s:26379', ''])('a bad address list %j is named', (list) => {
    const found = problems({ REDIS_SENTINELS: list === '' ? ' , ' : list, REDIS_SENTINEL_NAME: 'a' });
    expect(found).toEqual([expect.stringMatching(/^REDIS_SENTINELS must be 1 to 32 comma-separated host:port addresses/)]);
  });
});

describe('Redis Cluster', () => {
  test('seed nodes and the data password', () => {
    const redis = loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2:7001', REDIS_PASSWORD: 'pw' }).redis;

    expect(redis).toMatchObject({
      cluster: {
        nodes: [
          { host: '10.0.0.1', port: 7000 },
          { host: '10.0.0.2', port: 7001 },
        ],
      },
    });
    expect(redis !== undefined && 'cluster' in redis ? redis.cluster.password?.reveal() : undefined).toBe('pw');
  });

  test('REDIS_SENTINEL_NAME means nothing with a cluster', () => {
    expect(problems({ REDIS_CLUSTER_NODES: 'n:7000', REDIS_SENTINEL_NAME: 'a' })).toEqual([
      expect.stringMatching(/^REDIS_SENTINEL_NAME is set but means nothing with REDIS_CLUSTER_NODES/),
    ]);
  });
});

describe('Redis TLS', () => {
  const PEM = (label: string) => `-----BEGIN ${label}-----\nMIIB\n-----END ${label}-----\n`;
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'redis-tls-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string) => {
    const where = path.join(dir, name);
    writeFileSync(where, content);
    return where;
  };

  test('CA, client certificate and key are read from their files, the key kept secret', () => {
    const env = {
      REDIS_URL: 'rediss://redis.internal:6380',
      REDIS_TLS_CA_FILE: file('ca.pem', PEM('CERTIFICATE')),
      REDIS_TLS_CERT_FILE: file('client.pem', PEM('CERTIFICATE')),
      REDIS_TLS_KEY_FILE: file('client.key', PEM('PRIVATE KEY')),
    };
    const redis = loadConfig(env).redis;

    expect(redis?.tls?.ca).toContain('BEGIN CERTIFICATE');
    expect(redis?.tls?.cert).toContain('BEGIN CERTIFICATE');
    expect(redis?.tls?.key?.reveal()).toContain('BEGIN PRIVATE KEY');
    expect(JSON.stringify(redis)).not.toContain('PRIVATE KEY');
  });

  test('REDIS_TLS=true turns TLS on for Sentinel and Cluster with the system CAs', () => {
    expect(loadConfig({ REDIS_CLUSTER_NODES: 'n:7000', REDIS_TLS: 'true' }).redis?.tls).toEqual({});
    expect(loadConfig({ REDIS_CLUSTER_NODES: 'n:7000' }).redis?.tls).toBeUndefined();
  });

  test('a missing or unreadable file, and one without PEM, are start-up errors naming the path, never the content', () => {
    const missing = path.join(dir, 'missing.pem');
    const notPem = file('not.pem', 'top-secret-key-material');
    const found = problems({
      REDIS_CLUSTER_NODES: 'n:7000',
      REDIS_TLS_CA_FILE: missing,
      REDIS_TLS_CERT_FILE: dir,
      REDIS_TLS_KEY_FILE: notPem,
    });

    expect(found).toEqual([
      `REDIS_TLS_CA_FILE names a file that cannot be read: ${missing} (ENOENT)`,
      `REDIS_TLS_CERT_FILE names a file that cannot be read: ${dir} (EISDIR)`,
      `REDIS_TLS_KEY_FILE does not hold a PEM block: ${notPem}`,
    ]);
    expect(found.join('\n')).not.toContain('top-secret');
  });

  test('a certificate without its key, TLS files with a redis:// URL, and REDIS_TLS with a URL are refused', () => {
    expect(problems({ REDIS_CLUSTER_NODES: 'n:7000', REDIS_TLS_CERT_FILE: file('c.pem', PEM('CERTIFICATE')) })).toEqual([
      expect.stringMatching(/^REDIS_TLS_CERT_FILE and REDIS_TLS_KEY_FILE go together/),
    ]);
    expect(problems({ REDIS_URL: 'redis://r:6379', REDIS_TLS_CA_FILE: file('ca.pem', PEM('CERTIFICATE')) })).toEqual([
      expect.stringMatching(/REDIS_URL is not a rediss:\/\/ URL/),
    ]);
    expect(problems({ REDIS_URL: 'rediss://r:6379', REDIS_TLS: 'true' })).toEqual([
      expect.stringMatching(/^REDIS_TLS is set but means nothing with REDIS_URL/),
    ]);
  });
});
