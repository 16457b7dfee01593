import { format, inspect } from 'node:util';
import { Secret } from '../../src/redaction/secret';

describe('Secret', () => {
  const value = 'demo-api-password';

  test('reveal() gives the value', () => {
    expect(new Secret(value).reveal()).toBe(value);
  });

  test('every usual way of printing it gives [redacted]', () => {
    const secret = new Secret(value);
    const holder = { email: 'api@demo.example', password: secret };

    expect(String(secret)).toBe('[redacted]');
    expect(`${secret}`).toBe('[redacted]');
    expect(JSON.stringify(holder)).toBe('{"email":"api@demo.example","password":"[redacted]"}');
    expect(inspect(holder, { depth: 5, showHidden: true })).not.toContain(value);
    expect(format('%o %O %s %j', secret, holder, secret, holder)).not.toContain(value);
  });

  test('an empty value is refused', () => {
    expect(() => new Secret('')).toThrow('non-empty string');
  });
});
