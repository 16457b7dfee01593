import { redactCredentials } from '../../src/redaction/redactCredentials';
import { DEFAULT_UPSTREAM_PATH } from '../support/upstreamOptions';
import { parseRetryAfter } from '../../src/upstream/transport/retryAfter';
import { buildUrl } from '../../src/upstream/transport/url';
import { UpstreamError } from '../../src/kernel/failures/upstreamError';

describe('buildUrl', () => {
  test('keeps a path prefix of the base, with or without a trailing slash', () => {
    expect(buildUrl('https://host.example/analytics/', '/api/user/signin').href).toBe('https://host.example/analytics/api/user/signin');
    expect(buildUrl('https://host.example/analytics', '/api/user/signin').href).toBe('https://host.example/analytics/api/user/signin');
    expect(buildUrl('http://127.0.0.1:4010', '/api/dashboard/query').href).toBe('http://127.0.0.1:4010/api/dashboard/query');
  });

  test('encodes query values and leaves out undefined ones', () => {
    const url = buildUrl('https://rec.example', '/recommenderexperience/render.json', {
      id: 'IL_a b',
      canonical_url: 'https://news.example/a?x=1&y=2#top',
      domain: undefined,
      client_id: 'ü/1',
    });

    expect([...url.searchParams.keys()]).toEqual(['id', 'canonical_url', 'client_id']);
    expect(url.searchParams.get('canonical_url')).toBe('https://news.example/a?x=1&y=2#top');
    expect(url.search).not.toContain('&y=2');
    expect(url.searchParams.get('client_id')).toBe('ü/1');
  });

  test('rejects a relative endpoint path', () => {
    expect(() => buildUrl('https://host.example', 'api/x')).toThrow('path must start with "/"');
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');

  test.each([
    ['7', 7],
    [' 120 ', 120],
    ['0', 0],
    [['3', '9'], 3],
    ['Sat, 21 Nov 2026 10:01:00 GMT', 60],
    ['Sat, 21 Nov 2026 10:00:00 GMT', 0],
    ['Sat, 21 Nov 2026 09:00:00 GMT', 0],
  ])('%j → %i seconds', (header, seconds) => {
    expect(parseRetryAfter(header, now, DEFAULT_UPSTREAM_PATH.maxRetryAfterSeconds)).toBe(seconds);
  });

  test.each([undefined, '', 'soon', '-5', '1.5'])('%j gives no hint', (header) => {
    expect(parseRetryAfter(header, now, DEFAULT_UPSTREAM_PATH.maxRetryAfterSeconds)).toBeUndefined();
  });
});

describe('redactCredentials', () => {
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';

  test('removes bearer credentials, JWTs and the given secrets', () => {
    const text = `Authorization: Bearer abc.def for ${jwt} with password hunter2`;

    const clean = redactCredentials(text, { secrets: ['hunter2'] });

    expect(clean).toBe('Authorization: Bearer [redacted] for [redacted] with password [redacted]');
  });

  test('bounds the length only when asked to', () => {
    const long = 'x'.repeat(2_000);

    expect(redactCredentials(long, { maxLength: 500 })).toBe(`${'x'.repeat(500)}…`);
    expect(redactCredentials(long)).toBe(long);
  });
});

describe('UpstreamError', () => {
  test('describes each kind without a URL', () => {
    const where = { service: 'reporting', endpoint: '/api/dashboard/query' } as const;

    expect(new UpstreamError({ ...where, kind: 'http', status: 403, upstreamMessage: 'API role not enabled for this user' }).message).toBe(
      'reporting /api/dashboard/query answered HTTP 403: API role not enabled for this user',
    );
    expect(new UpstreamError({ ...where, kind: 'timeout', timeoutMs: 200 }).message).toBe(
      'reporting /api/dashboard/query did not answer within 200 ms',
    );
    expect(new UpstreamError({ ...where, kind: 'network', reason: 'ECONNRESET' }).message).toBe(
      'reporting /api/dashboard/query could not be reached (ECONNRESET)',
    );
    expect(new UpstreamError({ ...where, kind: 'bad_response', reason: '[0].total is not a number' }).message).toBe(
      'reporting /api/dashboard/query sent a malformed response: [0].total is not a number',
    );
  });

  test('scrubs tokens from every upstream-provided string, and given secrets on request', () => {
    const error = new UpstreamError({
      service: 'reporting',
      endpoint: '/api/user/signin',
      kind: 'http',
      status: 401,
      upstreamMessage: 'token eyJa.eyJb.c rejected for pw s3cret',
      upstreamErrors: [{ path: 'Bearer abc', message: 'pw s3cret' }],
    });

    const scrubbed = error.withSecretsRemoved(['s3cret']);
    const serialized = JSON.stringify({ ...scrubbed, message: scrubbed.message });

    expect(error.upstreamMessage).toBe('token [redacted] rejected for pw s3cret');
    expect(serialized).not.toContain('eyJa');
    expect(serialized).not.toContain('s3cret');
    expect(scrubbed.upstreamErrors).toEqual([{ path: 'Bearer [redacted]', message: 'pw [redacted]' }]);
    expect(scrubbed).toMatchObject({ service: 'reporting', endpoint: '/api/user/signin', kind: 'http', status: 401 });
  });
});
