import { ConfigError, loadConfig } from '../../src/config';

const REMOTE = {
  REPORTING_BASE_URL: 'https://api.analytics.example',
  RECOMMENDER_URL: 'https://rec.analytics.example',
  REPORTING_EMAIL: 'api@publisher.example',
  REPORTING_PASSWORD: 'password',
};
const JWKS_FILE = JSON.stringify({ keys: [{ kty: 'RSA', kid: 'k1', n: 'AQAB', e: 'AQAB' }] });

function problems(env: NodeJS.ProcessEnv, files: Record<string, string> = {}): string[] {
  try {
    loadConfig(env, (path) => {
      if (files[path] === undefined) throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
      return files[path];
    });
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  return [];
}

describe('CALLER_AUTH', () => {
  test('production against the real hosts refuses to start until it is set, naming it', () => {
    const found = problems({ ...REMOTE, NODE_ENV: 'production' });
    expect(found).toEqual([expect.stringMatching(/^CALLER_AUTH is required in production against the real hosts/)]);
  });

  test('defaults to none in development, with the embedded emulator, and when set to none on purpose', () => {
    expect(loadConfig({ ...REMOTE }).callerAuth).toEqual({ proofs: [] });
    expect(loadConfig({ NODE_ENV: 'production' }).callerAuth).toEqual({ proofs: [] });
    expect(loadConfig({ ...REMOTE, NODE_ENV: 'production', CALLER_AUTH: 'none' }).callerAuth).toEqual({ proofs: [] });
  });

  test('reads each proof with its settings; secrets from files; the header name lower-cased', () => {
    const config = loadConfig(
      {
        ...REMOTE,
        NODE_ENV: 'production',
        CALLER_AUTH: 'jwt, router-secret,hmac',
        ROUTER_SECRET_HEADER: 'X-Gateway-Secret',
        ROUTER_SECRET_FILE: '/run/secrets/router',
        ROUTER_HMAC_SECRET: 'hmac-secret',
        ROUTER_HMAC_SECRET_PREVIOUS: 'hmac-secret-before',
        JWT_JWKS_FILE: '/run/jwks.json',
        JWT_ISSUER: 'https://idp.example/',
        JWT_AUDIENCE: 'analytics',
        JWT_SITES_CLAIM: 'sites',
      },
      (path) => ({ '/run/secrets/router': 'from-file\n', '/run/jwks.json': JWKS_FILE })[path] ?? '',
    ).callerAuth;
    expect(config.proofs).toEqual(['router-secret', 'hmac', 'jwt']);
    expect(config.routerSecret?.header).toBe('x-gateway-secret');
    expect(config.routerSecret?.secret.reveal()).toBe('from-file');
    expect(config.hmac?.secret.reveal()).toBe('hmac-secret');
    expect(config.hmac?.previous?.reveal()).toBe('hmac-secret-before');
    expect(config.routerSecret?.previous).toBeUndefined();
    expect(config.jwt).toEqual({
      jwks: { keySet: JSON.parse(JWKS_FILE) },
      issuer: 'https://idp.example/',
      audience: 'analytics',
      sitesClaim: 'sites',
    });
    // A secret never shows when the config is printed.
    expect(JSON.stringify(config)).not.toContain('from-file');
    expect(JSON.stringify(config)).not.toContain('hmac-secret');
  });

  test('names every missing or unusable setting at once, never a secret', () => {
    expect(problems({ CALLER_AUTH: 'router-secret,hmac,jwt' })).toEqual([
      'ROUTER_SECRET (or ROUTER_SECRET_FILE) is required when CALLER_AUTH includes router-secret',
      'ROUTER_HMAC_SECRET (or ROUTER_HMAC_SECRET_FILE) is required when CALLER_AUTH includes hmac',
      'JWT_JWKS_URL or JWT_JWKS_FILE is required when CALLER_AUTH includes jwt',
    ]);
    expect(problems({ CALLER_AUTH: 'mtls' })).toEqual([
      expect.stringMatching(/^CALLER_AUTH must be none or a comma-separated list of router-secret, hmac, jwt/),
    ]);
    expect(problems({ CALLER_AUTH: 'none,jwt' })).toEqual([expect.stringMatching(/none cannot be combined/)]);
    expect(problems({ CALLER_AUTH: 'jwt', JWT_JWKS_FILE: '/bad.json' }, { '/bad.json': '{"keys": []}' })).toEqual([
      expect.stringMatching(/^JWT_JWKS_FILE must name a JSON Web Key Set file/),
    ]);
    expect(problems({ CALLER_AUTH: 'jwt', JWT_JWKS_URL: 'ftp://idp.example/jwks' })).toEqual([
      expect.stringMatching(/^JWT_JWKS_URL must be an absolute http\(s\) URL/),
    ]);
  });

  test('CALLER_NAME_HEADER_TRUSTED: off by default; on only behind router-secret or hmac', () => {
    const withSecret = { CALLER_AUTH: 'router-secret', ROUTER_SECRET: 'secret' };
    expect(loadConfig(withSecret).callerAuth.clientNameTrusted).toBeUndefined();
    expect(loadConfig({ ...withSecret, CALLER_NAME_HEADER_TRUSTED: 'true' }).callerAuth.clientNameTrusted).toBe(true);
    expect(
      loadConfig({ CALLER_AUTH: 'hmac', ROUTER_HMAC_SECRET: 'h', CALLER_NAME_HEADER_TRUSTED: 'true' }).callerAuth.clientNameTrusted,
    ).toBe(true);
    expect(problems({ CALLER_AUTH: 'jwt', JWT_JWKS_URL: 'https://idp.example/jwks', CALLER_NAME_HEADER_TRUSTED: 'true' })).toEqual([
      expect.stringMatching(/^CALLER_NAME_HEADER_TRUSTED=true needs CALLER_AUTH to include router-secret or hmac/),
    ]);
    expect(problems({ CALLER_NAME_HEADER_TRUSTED: 'true' })).toEqual([expect.stringMatching(/^CALLER_NAME_HEADER_TRUSTED=true needs/)]);
    expect(problems({ ...withSecret, CALLER_NAME_HEADER_TRUSTED: 'maybe' })).toEqual([
      expect.stringMatching(/^CALLER_NAME_HEADER_TRUSTED must be true or false/),
    ]);
  });

  test('JWT_MAX_TOKEN_LIFETIME_SECONDS: unset by default, else an integer from 60 s to a year', () => {
    const jwt = { CALLER_AUTH: 'jwt', JWT_JWKS_URL: 'https://idp.example/jwks' };
    expect(loadConfig(jwt).callerAuth.jwt?.maxTokenLifetimeSeconds).toBeUndefined();
    expect(loadConfig({ ...jwt, JWT_MAX_TOKEN_LIFETIME_SECONDS: '3600' }).callerAuth.jwt?.maxTokenLifetimeSeconds).toBe(3600);
    expect(problems({ ...jwt, JWT_MAX_TOKEN_LIFETIME_SECONDS: '10' })).toEqual([
      expect.stringMatching(/^JWT_MAX_TOKEN_LIFETIME_SECONDS must be an integer from 60/),
    ]);
  });

  test('METRICS_CALLER_LABEL: hashed by default (a random key per process), off or raw; the key from METRICS_CALLER_LABEL_KEY or its file', () => {
    expect(loadConfig({}).metricsCallerLabel).toEqual({ mode: 'hashed' });
    expect(loadConfig({ METRICS_CALLER_LABEL: 'off' }).metricsCallerLabel).toEqual({ mode: 'off' });
    expect(loadConfig({ METRICS_CALLER_LABEL: 'raw' }).metricsCallerLabel).toEqual({ mode: 'raw' });
    const keyed = loadConfig({ METRICS_CALLER_LABEL_KEY_FILE: '/run/secrets/label' }, () => 'label-key\n').metricsCallerLabel;
    expect(keyed.key?.reveal()).toBe('label-key');
    expect(JSON.stringify(keyed)).not.toContain('label-key');
    expect(problems({ METRICS_CALLER_LABEL: 'plain' })).toEqual([
      expect.stringMatching(/^METRICS_CALLER_LABEL must be one of hashed, off, raw/),
    ]);
  });
});
