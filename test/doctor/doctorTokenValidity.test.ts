import { SignJWT, UnsecuredJWT } from 'jose';
import { formatDuration, tokenValidity } from '../../src/doctor/tokenValidity';

const NOW_MS = Date.UTC(2026, 10, 25, 12, 0, 0);
const NOW_S = NOW_MS / 1000;

const jwt = (claims: { exp?: number }) => {
  const builder = new UnsecuredJWT({ sub: 'doctor' }).setIssuedAt(NOW_S);
  return (claims.exp === undefined ? builder : builder.setExpirationTime(claims.exp)).encode();
};

describe("the doctor's token lifetime", () => {
  it.each([
    [30 * 60, 'token valid for 30 min (until 2026-11-25T12:30:00.000Z)'],
    [14 * 86_400, 'token valid for 14 days (until 2026-12-09T12:00:00.000Z)'],
    [3 * 3_600, 'token valid for 3 h (until 2026-11-25T15:00:00.000Z)'],
  ])('reads a token valid for %i s from exp', (seconds, text) => {
    expect(tokenValidity(jwt({ exp: NOW_S + seconds }), NOW_MS)).toEqual({ kind: 'valid', text });
  });

  it('reads a signed token the same way: exp is decoded, not verified', async () => {
    const signed = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(NOW_S + 1800)
      .sign(new Uint8Array(32));
    expect(tokenValidity(signed, NOW_MS).text).toBe('token valid for 30 min (until 2026-11-25T12:30:00.000Z)');
  });

  it('says a token already expired by this clock is expired, pointing at the clock', () => {
    expect(tokenValidity(jwt({ exp: NOW_S - 60 }), NOW_MS)).toEqual({
      kind: 'expired',
      text: "the token expired at 2026-11-25T11:59:00.000Z by this machine's clock, as soon as it was issued",
    });
  });

  it('says the lifetime is unknown without exp, or when the token is not a JWT', () => {
    expect(tokenValidity(jwt({}), NOW_MS).kind).toBe('unknown');
    expect(tokenValidity('opaque-token', NOW_MS)).toEqual({
      kind: 'unknown',
      text: 'the token is not a readable JWT, so its lifetime is unknown (the subgraph renews it after a 401)',
    });
  });

  it.each([
    [1_000, '1 s'],
    [59_000, '59 s'],
    [60_000, '1 min'],
    [30 * 60_000 - 5, '30 min'],
    [119 * 60_000, '119 min'],
    [2 * 3_600_000, '2 h'],
    [47 * 3_600_000, '47 h'],
    [14 * 86_400_000 - 1_000, '14 days'],
  ])('rounds %i ms to %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
