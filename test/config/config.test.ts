import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConfigError,
  DEFAULT_ANALYTICS_CONFIG,
  DEFAULT_BREAKER_CONFIG,
  DEFAULT_CACHE_CONFIG,
  DEFAULT_LIMITS,
  EMBEDDED_GOVERNOR_CONFIG,
  loadConfig,
  SERVER_DEFAULTS,
  UPSTREAM_CALL_DEFAULTS,
  type Config,
} from '../../src/config';
import type { ReadSecretFile } from '../../src/config/env';
import { tracingWanted } from '../../src/config/tracing';
import { emulatorOptionsFromEnv } from '../../emulator';
import { Secret } from '../../src/redaction/secret';

const REMOTE = {
  REPORTING_BASE_URL: 'https://api.analytics.example/v1/',
  RECOMMENDER_URL: 'https://rec.analytics.example',
  REPORTING_EMAIL: 'api@publisher.example',
  REPORTING_PASSWORD: ' pass word with spaces ',
};

function configError(env: NodeJS.ProcessEnv, readSecretFile?: ReadSecretFile): ConfigError {
  try {
    loadConfig(env, readSecretFile);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected loadConfig to throw a ConfigError');
}

describe('loadConfig', () => {
  test('an empty environment gives the documented defaults and the embedded emulator', () => {
    const config = loadConfig({});

    expect(config).toEqual<Config>({
      port: 4001,
      production: false,
      logLevel: 'info',
      upstream: { mode: 'embedded', emulator: {} },
      upstreamTimeoutMs: 10_000,
      renderMaxConcurrency: 8,
      upstreamMaxResponseBytes: 8_388_608,
      maxRetryAfterSeconds: 300,
      reportingMaxRows: 500,
      signinFailureBackoffSeconds: 60,
      corsOrigins: [],
      shutdownDelaySeconds: 5,
      responseCacheEnabled: true,
      landingPage: 'sandbox',
      httpTimeouts: { keepAliveMs: 15_000, headersMs: 20_000, requestMs: 30_000, checkIntervalMs: 1_000 },
      schemaAuthorizationDirectives: true,
      cache: { renderTtlSeconds: 60, dashboardTtlSeconds: 60, staleIfErrorSeconds: 600 },
      analytics: {
        chunkSize: 500,
        windowAlignSeconds: 60,
        askDeadlineMs: 20_000,
        maxStalenessSeconds: 900,
        outsideShare: 0.5,
        dashboardSharePerCaller: 0.2,
        dashboardShareWindowSeconds: 600,
        newTablesPerCaller: 30,
      },
      governor: { reportingPerMinute: 600, signinPerMinute: 20, renderPerMinute: 6_000, queueTimeoutMs: 2_000 },
      breaker: { cooldownSeconds: 10 },
      redis: undefined,
      metricsEnabled: true,
      metricsCallerLabel: { mode: 'hashed' },
      limits: {
        maxDepth: 7,
        maxAliases: 15,
        maxDirectives: 50,
        maxTokens: 1_000,
        maxUpstreamCallsPerOperation: 50,
        documentCacheBytes: 16 * 1024 * 1024,
        persistedQueriesOnly: false,
      },
      subscriptions: {
        maxSubscriptions: 10_000,
        maxPerConnection: 100,
        startsPerSecond: 10,
        maxBufferedBytes: 1024 * 1024,
        maxSockets: 10_000,
        idleTimeoutMs: 30_000,
        keepAliveMs: 12_000,
        callbackUrls: [{ kind: 'loopback' }],
      },
      readiness: { maxEventLoopLagMs: 1_000, eventLoopLagSeconds: 10 },
      tracing: { enabled: false },
      callerAuth: { proofs: [] },
    });
  });

  test('the governor spends the embedded emulator budgets, or conservative ones against real hosts', () => {
    const embedded = loadConfig({ EMULATOR_REPORTING_RATE_PER_MINUTE: '1', EMULATOR_RENDER_RATE_PER_MINUTE: '50' });
    const remote = loadConfig(REMOTE);

    expect(embedded.governor).toEqual({ reportingPerMinute: 1, signinPerMinute: 20, renderPerMinute: 50, queueTimeoutMs: 2_000 });
    expect(remote.governor).toEqual({ reportingPerMinute: 1, signinPerMinute: 10, renderPerMinute: 600, queueTimeoutMs: 2_000 });
  });

  test('reads the governor and breaker variables, and names each bad one', () => {
    const config = loadConfig({
      ...REMOTE,
      REPORTING_RATE_PER_MINUTE: '30',
      SIGNIN_RATE_PER_MINUTE: '3',
      RENDER_RATE_PER_MINUTE: '1200',
      UPSTREAM_QUEUE_TIMEOUT_MS: '500',
      BREAKER_COOLDOWN_SECONDS: '0.5',
    });
    const error = configError({ REPORTING_RATE_PER_MINUTE: '0', UPSTREAM_QUEUE_TIMEOUT_MS: 'soon', BREAKER_COOLDOWN_SECONDS: '-1' });

    expect(config.governor).toEqual({ reportingPerMinute: 30, signinPerMinute: 3, renderPerMinute: 1200, queueTimeoutMs: 500 });
    expect(config.breaker).toEqual({ cooldownSeconds: 0.5 });
    expect(error.problems).toEqual([
      expect.stringContaining('REPORTING_RATE_PER_MINUTE'),
      expect.stringContaining('UPSTREAM_QUEUE_TIMEOUT_MS'),
      expect.stringContaining('BREAKER_COOLDOWN_SECONDS'),
    ]);
  });

  test('reads the analytics variables and refuses chunks the upstream cannot page', () => {
    expect(
      loadConfig({
        ANALYTICS_CHUNK_SIZE: '200',
        ANALYTICS_WINDOW_ALIGN_SECONDS: '0',
        ANALYTICS_ASK_DEADLINE_MS: '15000',
        ANALYTICS_MAX_STALENESS_SECONDS: '600',
        ANALYTICS_COLD_SHARE: '0.25',
        DASHBOARD_SHARE_PER_CALLER: '0.1',
        DASHBOARD_SHARE_WINDOW_SECONDS: '900',
        ANALYTICS_NEW_TABLES_PER_CALLER: '12',
      }).analytics,
    ).toEqual({
      chunkSize: 200,
      windowAlignSeconds: 0,
      askDeadlineMs: 15_000,
      maxStalenessSeconds: 600,
      outsideShare: 0.25,
      dashboardSharePerCaller: 0.1,
      dashboardShareWindowSeconds: 900,
      newTablesPerCaller: 12,
    });
    expect(configError({ DASHBOARD_SHARE_PER_CALLER: '1.5', DASHBOARD_SHARE_WINDOW_SECONDS: '0' }).problems).toEqual([
      'DASHBOARD_SHARE_PER_CALLER must be a number > 0 and <= 1 (got "1.5")',
      'DASHBOARD_SHARE_WINDOW_SECONDS must be an integer from 1 to 86400 (got "0")',
    ]);
    expect(configError({ ANALYTICS_NEW_TABLES_PER_CALLER: '0' }).problems).toEqual([
      'ANALYTICS_NEW_TABLES_PER_CALLER must be an integer from 1 to 100000 (got "0")',
    ]);
    expect(configError({ ANALYTICS_COLD_SHARE: '0', ANALYTICS_ASK_DEADLINE_MS: '-1' }).problems).toEqual([
      'ANALYTICS_ASK_DEADLINE_MS must be an integer from 0 to 120000 (got "-1")',
      'ANALYTICS_COLD_SHARE must be a number > 0 and <= 1 (got "0")',
    ]);
    expect(configError({ ANALYTICS_CHUNK_SIZE: '1001', ANALYTICS_WINDOW_ALIGN_SECONDS: '-1' }).problems).toEqual([
      'ANALYTICS_CHUNK_SIZE must be an integer from 1 to 1000 (got "1001")',
      'ANALYTICS_WINDOW_ALIGN_SECONDS must be an integer from 0 to 3600 (got "-1")',
    ]);
  });

  test('reads the sockets and readiness settings of live numbers, and names each one out of range', () => {
    const config = loadConfig({
      MAX_SOCKETS: '500',
      SUBSCRIPTION_IDLE_TIMEOUT_SECONDS: '45',
      SUBSCRIPTION_KEEPALIVE_SECONDS: '5',
      READINESS_MAX_EVENT_LOOP_LAG_MS: '0',
      READINESS_EVENT_LOOP_LAG_SECONDS: '30',
    });
    expect(config.subscriptions).toMatchObject({ maxSockets: 500, idleTimeoutMs: 45_000, keepAliveMs: 5_000 });
    expect(config.readiness).toEqual({ maxEventLoopLagMs: 0, eventLoopLagSeconds: 30 });
    expect(
      configError({
        MAX_SOCKETS: '-1',
        SUBSCRIPTION_IDLE_TIMEOUT_SECONDS: '0',
        SUBSCRIPTION_KEEPALIVE_SECONDS: 'often',
        READINESS_MAX_EVENT_LOOP_LAG_MS: '60001',
        READINESS_EVENT_LOOP_LAG_SECONDS: '0',
      }).problems,
    ).toEqual([
      'MAX_SOCKETS must be an integer from 0 to 1000000 (got "-1")',
      'SUBSCRIPTION_IDLE_TIMEOUT_SECONDS must be an integer from 1 to 3600 (got "0")',
      'SUBSCRIPTION_KEEPALIVE_SECONDS must be an integer from 1 to 300 (got "often")',
      'READINESS_MAX_EVENT_LOOP_LAG_MS must be an integer from 0 to 60000 (got "60001")',
      'READINESS_EVENT_LOOP_LAG_SECONDS must be an integer from 1 to 600 (got "0")',
    ]);
  });

  test('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      NODE_ENV: 'production',
      LOG_LEVEL: 'debug',
      UPSTREAM_TIMEOUT_MS: '2500',
      RENDER_MAX_CONCURRENCY: '16',
      EMULATOR_SEED: '42',
      EMULATOR_SCALE: '0.02',
      EMULATOR_TOKEN_TTL_SECONDS: '60',
      EMULATOR_REPORTING_RATE_PER_MINUTE: '100',
      EMULATOR_SIGNIN_RATE_PER_MINUTE: '5',
      EMULATOR_RENDER_RATE_PER_MINUTE: '100000',
    });

    expect(config).toMatchObject({ port: 8080, production: true, logLevel: 'debug', upstreamTimeoutMs: 2500, renderMaxConcurrency: 16 });
    expect(config.upstream).toEqual({
      mode: 'embedded',
      emulator: {
        seed: 42,
        scale: 0.02,
        tokenTtlSeconds: 60,
        rates: { reportingPerMinute: 100, signinPerMinute: 5, renderPerMinute: 100_000 },
      },
    });
  });

  test('CORS_ORIGINS is a comma-separated list of exact origins', () => {
    const config = loadConfig({ CORS_ORIGINS: ' https://app.example.com, http://localhost:3000 ,' });

    expect(config.corsOrigins).toEqual(['https://app.example.com', 'http://localhost:3000']);
  });

  test('a CORS_ORIGINS entry that is not an origin is an error naming it', () => {
    const error = configError({ CORS_ORIGINS: 'https://app.example.com/path,*,ftp://files.example.com' });

    expect(error.problems).toHaveLength(3);
    expect(error.problems[0]).toContain('CORS_ORIGINS must list origins');
    expect(error.problems.join('\n')).toContain('"https://app.example.com/path"');
  });

  test('reads the metrics, limit and tracing variables', () => {
    const config = loadConfig({
      METRICS_PORT: '9464',
      METRICS_ENABLED: 'false',
      MAX_QUERY_DEPTH: '5',
      MAX_QUERY_ALIASES: '3',
      MAX_QUERY_DIRECTIVES: '4',
      MAX_QUERY_TOKENS: '200',
      MAX_UPSTREAM_CALLS_PER_OPERATION: '10',
      DOCUMENT_CACHE_MAX_BYTES: '0',
      PERSISTED_QUERIES_ONLY: 'true',
      PERSISTED_QUERIES_MANIFEST: '/etc/subgraph/persisted.json',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
    });

    expect(config.metricsPort).toBe(9464);
    expect(config.metricsEnabled).toBe(false);
    expect(config.limits).toEqual({
      maxDepth: 5,
      maxAliases: 3,
      maxDirectives: 4,
      maxTokens: 200,
      maxUpstreamCallsPerOperation: 10,
      documentCacheBytes: 0,
      persistedQueriesOnly: true,
      persistedQueriesManifest: '/etc/subgraph/persisted.json',
    });
    expect(config.tracing).toEqual({ enabled: true });
  });

  test('tracing stays off when the SDK is disabled or the exporter is none', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }).tracing.enabled).toBe(false);
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'none' }).tracing.enabled).toBe(false);
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing.enabled).toBe(true);
  });

  test('lists every bad metrics, limit and tracing variable at once', () => {
    const error = configError({
      METRICS_PORT: '0',
      MAX_UPSTREAM_CALLS_PER_OPERATION: '0',
      MAX_QUERY_DEPTH: 'deep',
      PERSISTED_QUERIES_ONLY: 'yes',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
    });

    expect(error.problems).toEqual([
      'MAX_QUERY_DEPTH must be an integer from 1 to 1000 (got "deep")',
      'MAX_UPSTREAM_CALLS_PER_OPERATION must be an integer from 1 to 1000000 (got "0")',
      'PERSISTED_QUERIES_ONLY must be true or false (got "yes")',
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an absolute http(s) URL (got "collector:4318")',
      'METRICS_PORT must be an integer from 1 to 65535 (got "0")',
    ]);
  });

  test('PERSISTED_QUERIES_ONLY needs a manifest', () => {
    expect(configError({ PERSISTED_QUERIES_ONLY: 'true' }).problems).toEqual([
      'PERSISTED_QUERIES_ONLY=true needs PERSISTED_QUERIES_MANIFEST: the path of the persisted operations manifest',
    ]);
  });

  test('all four upstream variables select the remote upstream, with the password kept secret and untrimmed', () => {
    const config = loadConfig(REMOTE);

    expect(config.upstream).toMatchObject({
      mode: 'remote',
      reportingBaseUrl: REMOTE.REPORTING_BASE_URL,
      recommenderUrl: REMOTE.RECOMMENDER_URL,
      email: REMOTE.REPORTING_EMAIL,
    });
    if (config.upstream.mode !== 'remote') throw new Error('expected remote mode');
    expect(config.upstream.password).toBeInstanceOf(Secret);
    expect(config.upstream.password.reveal()).toBe(REMOTE.REPORTING_PASSWORD);
    expect(JSON.stringify(config)).not.toContain('pass word');
  });

  test.each(Object.keys(REMOTE))('leaving out only %s is an error naming it, never a fallback to the emulator', (name) => {
    const env: NodeJS.ProcessEnv = { ...REMOTE, [name]: undefined };

    const error = configError(env);

    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(new RegExp(`^${name} is missing`));
  });

  test('a single upstream variable names the three missing ones', () => {
    const error = configError({ REPORTING_BASE_URL: 'http://localhost:4010' });

    expect(error.message).toContain('RECOMMENDER_URL, REPORTING_EMAIL, REPORTING_PASSWORD are missing');
    expect(error.message).toContain('REPORTING_BASE_URL is set');
  });

  test('an empty value counts as unset', () => {
    expect(
      loadConfig({ PORT: '', REPORTING_BASE_URL: '', RECOMMENDER_URL: '', REPORTING_EMAIL: '', REPORTING_PASSWORD: '' }),
    ).toMatchObject({
      port: 4001,
      upstream: { mode: 'embedded' },
    });
    expect(configError({ ...REMOTE, REPORTING_PASSWORD: '' }).problems).toEqual([expect.stringMatching(/^REPORTING_PASSWORD is missing/)]);
  });

  test.each([
    ['REPORTING_BASE_URL', 'localhost:4010', 'REPORTING_BASE_URL must be an absolute http(s) URL'],
    ['REPORTING_BASE_URL', '/api', 'REPORTING_BASE_URL must be an absolute http(s) URL'],
    ['RECOMMENDER_URL', 'ftp://rec.example', 'RECOMMENDER_URL must be an absolute http(s) URL'],
    ['REPORTING_EMAIL', 'not-an-email', 'REPORTING_EMAIL must be an email address'],
  ])('%s=%j is refused', (name, value, message) => {
    expect(configError({ ...REMOTE, [name]: value }).problems).toEqual([expect.stringContaining(message)]);
  });

  test('a URL with credentials is refused without echoing it', () => {
    const error = configError({ ...REMOTE, RECOMMENDER_URL: 'https://user:hunter2@rec.example' });

    expect(error.message).toContain('RECOMMENDER_URL must not contain credentials');
    expect(error.message).not.toContain('hunter2');
  });

  test.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '80.5'],
    ['UPSTREAM_TIMEOUT_MS', '0'],
    ['UPSTREAM_TIMEOUT_MS', '-1'],
    ['RENDER_MAX_CONCURRENCY', '0'],
    ['EMULATOR_SEED', 'x'],
    ['EMULATOR_SEED', '-1'],
    ['EMULATOR_RENDER_RATE_PER_MINUTE', '0'],
    ['EMULATOR_SCALE', '0'],
    ['EMULATOR_SCALE', 'big'],
    ['EMULATOR_SCALE', '11'],
    ['EMULATOR_TOKEN_TTL_SECONDS', '0'],
    ['LOG_LEVEL', 'verbose'],
  ])('%s=%j is refused with the variable and the value named', (name, value) => {
    const error = configError({ [name]: value });

    expect(error.problems).toEqual([expect.stringContaining(name)]);
    expect(error.problems[0]).toContain(JSON.stringify(value));
  });

  test('every problem is reported at once', () => {
    const error = configError({ PORT: 'x', LOG_LEVEL: 'loud', UPSTREAM_TIMEOUT_MS: 'soon', REPORTING_EMAIL: 'a@b.example' });

    expect(error.problems).toHaveLength(4);
    expect(error.message).toMatch(
      /PORT[\s\S]*LOG_LEVEL[\s\S]*REPORTING_BASE_URL, RECOMMENDER_URL, REPORTING_PASSWORD are missing[\s\S]*UPSTREAM_TIMEOUT_MS/,
    );
  });

  test('EMULATOR_* variables are checked by the emulator parser itself, so both read them alike', () => {
    const both = { EMULATOR_SCALE: '1e1', EMULATOR_TOKEN_TTL_SECONDS: String(400 * 86_400) };

    const error = configError({ ...both, PORT: 'x' });
    let standalone: unknown;
    try {
      emulatorOptionsFromEnv(both);
    } catch (thrown) {
      standalone = thrown;
    }

    expect(error.problems).toEqual([expect.stringContaining('PORT'), 'EMULATOR_SCALE must be a number > 0 and <= 10 (got "1e1")']);
    expect(standalone).toEqual(new Error('EMULATOR_SCALE must be a number > 0 and <= 10 (got "1e1")'));
    expect(loadConfig({ EMULATOR_TOKEN_TTL_SECONDS: String(400 * 86_400) }).upstream).toEqual({
      mode: 'embedded',
      emulator: { tokenTtlSeconds: 400 * 86_400 },
    });
  });

  test('the password never appears in an error, even when other variables are bad', () => {
    const error = configError({ ...REMOTE, PORT: 'nope', REPORTING_EMAIL: 'bad' });

    expect(error.message).not.toContain(REMOTE.REPORTING_PASSWORD.trim());
  });

  test('the result is frozen all the way down', () => {
    const config = loadConfig({ EMULATOR_SEED: '1' });

    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.upstream)).toBe(true);
    if (config.upstream.mode !== 'embedded') throw new Error('expected embedded mode');
    expect(Object.isFrozen(config.upstream.emulator)).toBe(true);
  });
});

describe('the variables other modules take as options', () => {
  test('each is read, with its documented default when unset', () => {
    const config = loadConfig({
      UPSTREAM_MAX_RESPONSE_BYTES: '1048576',
      MAX_RETRY_AFTER_SECONDS: '60',
      REPORTING_MAX_ROWS: '1000',
      SIGNIN_FAILURE_BACKOFF_SECONDS: '5',
      SHUTDOWN_DELAY_SECONDS: '0',
      RESPONSE_CACHE_ENABLED: 'false',
      DOCTOR_EXPERIENCE_ID: ' exp-1 ',
    });

    expect(config).toMatchObject({
      upstreamMaxResponseBytes: 1_048_576,
      maxRetryAfterSeconds: 60,
      reportingMaxRows: 1000,
      signinFailureBackoffSeconds: 5,
      shutdownDelaySeconds: 0,
      responseCacheEnabled: false,
      doctorExperienceId: 'exp-1',
    });
    expect(loadConfig({})).not.toHaveProperty('doctorExperienceId');
    expect(loadConfig({ DOCTOR_EXPERIENCE_ID: '  ' })).not.toHaveProperty('doctorExperienceId');
  });

  test('each unusable one is named with its range', () => {
    expect(
      configError({
        UPSTREAM_MAX_RESPONSE_BYTES: '1000',
        MAX_RETRY_AFTER_SECONDS: '0',
        REPORTING_MAX_ROWS: '1001',
        SIGNIN_FAILURE_BACKOFF_SECONDS: '901',
        SHUTDOWN_DELAY_SECONDS: '-1',
        RESPONSE_CACHE_ENABLED: 'maybe',
      }).problems,
    ).toEqual([
      'SHUTDOWN_DELAY_SECONDS must be an integer from 0 to 600 (got "-1")',
      'RESPONSE_CACHE_ENABLED must be true or false (got "maybe")',
      'UPSTREAM_MAX_RESPONSE_BYTES must be an integer from 1024 to 1073741824 (got "1000")',
      'MAX_RETRY_AFTER_SECONDS must be an integer from 1 to 86400 (got "0")',
      'REPORTING_MAX_ROWS must be an integer from 1 to 1000 (got "1001")',
      'SIGNIN_FAILURE_BACKOFF_SECONDS must be an integer from 1 to 900 (got "901")',
    ]);
  });

  test('analytics chunks follow REPORTING_MAX_ROWS: a smaller cap shrinks the default chunk, a larger chunk is refused', () => {
    expect(loadConfig({ REPORTING_MAX_ROWS: '200' }).analytics.chunkSize).toBe(200);
    expect(loadConfig({ REPORTING_MAX_ROWS: '1000' }).analytics.chunkSize).toBe(500);
    expect(loadConfig({ REPORTING_MAX_ROWS: '1000', ANALYTICS_CHUNK_SIZE: '800' }).analytics.chunkSize).toBe(800);
    expect(configError({ ANALYTICS_CHUNK_SIZE: '800' }).problems).toEqual([
      "ANALYTICS_CHUNK_SIZE (800) must not exceed REPORTING_MAX_ROWS (500): each chunk's rows must fit in one query",
    ]);
  });

  test('the exported defaults are what an empty environment gives, so code that is given no configuration agrees with it', () => {
    const config = loadConfig({});

    expect(config.cache).toEqual(DEFAULT_CACHE_CONFIG);
    expect(config.governor).toEqual(EMBEDDED_GOVERNOR_CONFIG);
    expect(config.breaker).toEqual(DEFAULT_BREAKER_CONFIG);
    expect(config.analytics).toEqual(DEFAULT_ANALYTICS_CONFIG);
    expect(config.limits).toEqual(DEFAULT_LIMITS);
    expect(config).toMatchObject({ ...SERVER_DEFAULTS, ...UPSTREAM_CALL_DEFAULTS });
  });
});

describe('*_FILE secrets', () => {
  let directory: string;
  const { REPORTING_PASSWORD: _password, ...REMOTE_WITHOUT_PASSWORD } = REMOTE;

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'config-test-'));
  });

  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  function secretFile(name: string, content: string): string {
    const path = join(directory, name);
    writeFileSync(path, content);
    return path;
  }

  test('REPORTING_PASSWORD_FILE gives the password, trailing newline removed, other whitespace kept', () => {
    const path = secretFile('password', ' pass word \n');

    const config = loadConfig({ ...REMOTE_WITHOUT_PASSWORD, REPORTING_PASSWORD_FILE: path });

    if (config.upstream.mode !== 'remote') throw new Error('expected remote mode');
    expect(config.upstream.password.reveal()).toBe(' pass word ');
    expect(JSON.stringify(config)).not.toContain('pass word');
  });

  test('the file is read once, at start-up', () => {
    const path = secretFile('password-once', 'once\r\n');
    const read = jest.fn((file: string) => readFileSync(file, 'utf8'));

    const config = loadConfig({ ...REMOTE_WITHOUT_PASSWORD, REPORTING_PASSWORD_FILE: path }, read);

    expect(read.mock.calls).toEqual([[path]]);
    if (config.upstream.mode !== 'remote') throw new Error('expected remote mode');
    expect(config.upstream.password.reveal()).toBe('once');
  });

  test('REPORTING_PASSWORD_FILE alone counts as the password: the other three are named missing', () => {
    const path = secretFile('password-alone', 'x\n');

    expect(configError({ REPORTING_PASSWORD_FILE: path }).problems).toEqual([
      expect.stringMatching(/^REPORTING_BASE_URL, RECOMMENDER_URL, REPORTING_EMAIL are missing/),
    ]);
  });

  test('setting both a variable and its _FILE is an error naming both, and the file is not read', () => {
    const path = secretFile('password-both', 'file-content-secret\n');
    const read = jest.fn((file: string) => readFileSync(file, 'utf8'));

    const error = configError({ ...REMOTE, REPORTING_PASSWORD_FILE: path });
    const redis = configError({ REDIS_URL: 'redis://r:6379', REDIS_URL_FILE: path });
    expect(() => loadConfig({ ...REMOTE, REPORTING_PASSWORD_FILE: path }, read)).toThrow(ConfigError);

    expect(error.problems).toEqual(['REPORTING_PASSWORD and REPORTING_PASSWORD_FILE are both set: set only one of them']);
    expect(redis.problems).toEqual(['REDIS_URL and REDIS_URL_FILE are both set: set only one of them']);
    expect(read).not.toHaveBeenCalled();
    expect(error.message).not.toContain(REMOTE.REPORTING_PASSWORD);
  });

  test('a missing file is an error naming the path', () => {
    const path = join(directory, 'no-such-file');

    expect(configError({ ...REMOTE_WITHOUT_PASSWORD, REPORTING_PASSWORD_FILE: path }).problems).toEqual([
      `REPORTING_PASSWORD_FILE names a file that cannot be read: ${path} (ENOENT)`,
    ]);
  });

  test('an unreadable file is an error naming the path, never its content', () => {
    const unreadable = (): string => {
      throw Object.assign(new Error('EACCES: permission denied, the file said hunter2'), { code: 'EACCES' });
    };

    const error = configError({ ...REMOTE_WITHOUT_PASSWORD, REPORTING_PASSWORD_FILE: '/run/secrets/password' }, unreadable);
    const directoryError = configError({ REDIS_URL_FILE: directory });

    expect(error.problems).toEqual(['REPORTING_PASSWORD_FILE names a file that cannot be read: /run/secrets/password (EACCES)']);
    expect(error.message).not.toContain('hunter2');
    expect(directoryError.problems).toEqual([`REDIS_URL_FILE names a file that cannot be read: ${directory} (EISDIR)`]);
  });

  test('an empty file is an error naming the path', () => {
    const path = secretFile('empty', '\n');

    expect(configError({ ...REMOTE_WITHOUT_PASSWORD, REPORTING_PASSWORD_FILE: path }).problems).toEqual([
      `REPORTING_PASSWORD_FILE names an empty file: ${path}`,
    ]);
  });

  test('REDIS_URL_FILE gives the Redis URL, kept secret; a bad one is refused without echoing it', () => {
    const good = secretFile('redis-url', 'rediss://:s3cret@redis.internal:6380/2\n');
    const bad = secretFile('redis-url-bad', 'http://:pw-in-file@redis.internal\n');

    const redis = loadConfig({ REDIS_URL_FILE: good }).redis;
    const error = configError({ REDIS_URL_FILE: bad });

    expect(redis !== undefined && 'url' in redis ? redis.url.reveal() : undefined).toBe('rediss://:s3cret@redis.internal:6380/2');
    expect(JSON.stringify(redis)).not.toContain('s3cret');
    expect(error.problems).toEqual([
      expect.stringMatching(/^REDIS_URL \(read from REDIS_URL_FILE\) must be a redis:\/\/ or rediss:\/\/ URL/),
    ]);
    expect(error.message).not.toContain('pw-in-file');
  });
});

describe('one env reader for the subgraph and the emulator', () => {
  function emulatorProblem(env: NodeJS.ProcessEnv): string {
    try {
      emulatorOptionsFromEnv(env);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    throw new Error('expected emulatorOptionsFromEnv to throw');
  }

  test.each([' 7 ', '7'])('an integer may carry surrounding whitespace (%j), in both', (value) => {
    expect(loadConfig({ PORT: value }).port).toBe(7);
    expect(emulatorOptionsFromEnv({ EMULATOR_PORT: value }).port).toBe(7);
  });

  test.each(['.5', '1e1', '0x10', '-1'])('the same decimals are refused by both (%j)', (value) => {
    expect(configError({ BREAKER_COOLDOWN_SECONDS: value }).problems).toEqual([
      `BREAKER_COOLDOWN_SECONDS must be a number > 0 and <= 3600 (got ${JSON.stringify(value)})`,
    ]);
    expect(emulatorProblem({ EMULATOR_SCALE: value })).toBe(`EMULATOR_SCALE must be a number > 0 and <= 10 (got ${JSON.stringify(value)})`);
  });
});

describe('tracing at import (src/observability/tracing/register.ts)', () => {
  test('reads only the tracing variables: other problems do not matter, its own problems turn it off', () => {
    expect(tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp', PORT: 'not a port' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toBe(false);
    expect(tracingWanted({})).toBe(false);
  });
});
