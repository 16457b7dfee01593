import { ConfigError, loadConfig } from '../../src/config';

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
      expect(redis?.url.reveal()).toBe(url);
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
