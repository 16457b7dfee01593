/**
 * SUBSCRIPTION_CALLBACK_URLS: which callback URLs Apollo's callback protocol
 * may POST to (no caller may aim the subgraph at an address of its choosing).
 */
import { EnvReader } from '../../src/config/env';
import { readSubscriptions } from '../../src/config/subscriptions';
import { isAllowedCallbackUrl } from '../../src/web/subscriptions/callbackUrls';

function read(value: string | undefined, production = false) {
  const reader = new EnvReader(value === undefined ? {} : { SUBSCRIPTION_CALLBACK_URLS: value });
  return { rules: readSubscriptions(reader, production).callbackUrls, problems: reader.problems };
}

describe('defaults', () => {
  it('allows only loopback addresses outside production', () => {
    const { rules } = read(undefined);
    for (const url of ['http://127.0.0.1:4000/callback', 'http://localhost/cb', 'https://[::1]:8443/x']) {
      expect(isAllowedCallbackUrl(url, rules)).toBe(true);
    }
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://10.0.0.5/cb', 'http://router.internal/cb']) {
      expect(isAllowedCallbackUrl(url, rules)).toBe(false);
    }
  });

  it('allows nothing in production until configured', () => {
    const { rules } = read(undefined, true);
    expect(rules).toEqual([]);
    expect(isAllowedCallbackUrl('http://127.0.0.1:4000/callback', rules)).toBe(false);
  });
});

describe('configured', () => {
  it('a URL prefix: same scheme, host and port, the path on a / boundary', () => {
    const { rules, problems } = read('https://router.internal:4000/callback', true);
    expect(problems).toEqual([]);
    expect(isAllowedCallbackUrl('https://router.internal:4000/callback', rules)).toBe(true);
    expect(isAllowedCallbackUrl('https://router.internal:4000/callback/sub-1', rules)).toBe(true);
    expect(isAllowedCallbackUrl('https://router.internal:4000/callbackevil', rules)).toBe(false);
    expect(isAllowedCallbackUrl('http://router.internal:4000/callback', rules)).toBe(false);
    expect(isAllowedCallbackUrl('https://router.internal:4001/callback', rules)).toBe(false);
    expect(isAllowedCallbackUrl('https://router.internal.evil.example:4000/callback', rules)).toBe(false);
    expect(isAllowedCallbackUrl('https://x@router.internal:4000/callback', rules)).toBe(false);
  });

  it('hosts, with or without a port, beside loopback; a bad entry is named', () => {
    const { rules, problems } = read('router-a, router-b:4000, loopback');
    expect(problems).toEqual([]);
    expect(isAllowedCallbackUrl('http://router-a/anything', rules)).toBe(true);
    expect(isAllowedCallbackUrl('https://router-a:9/anything', rules)).toBe(true);
    expect(isAllowedCallbackUrl('http://router-b:4000/cb', rules)).toBe(true);
    expect(isAllowedCallbackUrl('http://router-b:4001/cb', rules)).toBe(false);
    expect(isAllowedCallbackUrl('http://127.0.0.1/cb', rules)).toBe(true);
    expect(isAllowedCallbackUrl('file:///etc/passwd', rules)).toBe(false);
    expect(isAllowedCallbackUrl(42, rules)).toBe(false);

    expect(read('ftp://router/cb').problems).toEqual([expect.stringContaining('SUBSCRIPTION_CALLBACK_URLS entries must be')]);
    expect(read('router/path').problems).toHaveLength(1);
  });

  it('none: refuses every callback, loopback included', () => {
    const { rules } = read('none');
    expect(rules).toEqual([]);
    expect(isAllowedCallbackUrl('http://127.0.0.1/cb', rules)).toBe(false);
  });
});
