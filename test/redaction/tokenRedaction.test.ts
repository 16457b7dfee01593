import { TokenProvider } from '../../src/auth/tokenProvider';
import { REPORTING_SIGN_IN_ERRORS } from '../../src/upstream/datasources/signInErrors';
import { HeldSecrets } from '../../src/redaction/secret';
import { SIGN_IN_BACKOFF_DEFAULTS, UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';

/** A sign-in that succeeds at once with opaque (non-JWT) tokens: the vendor's tokens need not be JWTs. */
function opaqueSignIn() {
  let count = 0;
  return async () => `opaque-token-${++count}-${'x'.repeat(12)}`;
}

describe('TokenProvider and redaction', () => {
  it('holds every token it receives, so any exit redacts it, JWT or not', async () => {
    const secrets = new HeldSecrets();
    const tokens = new TokenProvider({
      ...UPSTREAM_PATH_DEFAULTS.tokenRenewal,
      signInBackoff: SIGN_IN_BACKOFF_DEFAULTS,
      errors: REPORTING_SIGN_IN_ERRORS,
      signIn: opaqueSignIn(),
      secrets,
    });
    const token = await tokens.getToken();
    expect(secrets.redact(`upstream echoed ${token}`)).not.toContain(token);
    expect(secrets.redact(`upstream echoed ${JSON.stringify(token)}`)).not.toContain(token);
  });

  it('keeps the previous token redacted (a call in flight may echo it) and forgets the one before', async () => {
    const secrets = new HeldSecrets();
    const tokens = new TokenProvider({
      ...UPSTREAM_PATH_DEFAULTS.tokenRenewal,
      signInBackoff: SIGN_IN_BACKOFF_DEFAULTS,
      errors: REPORTING_SIGN_IN_ERRORS,
      signIn: opaqueSignIn(),
      secrets,
    });
    const first = await tokens.getToken();
    const second = await tokens.renew(first);
    const third = await tokens.renew(second);
    expect(new Set([first, second, third]).size).toBe(3);
    expect(secrets.redact(third)).not.toContain(third);
    expect(secrets.redact(second)).not.toContain(second);
    expect(secrets.redact(first)).toBe(first);
  });
});
