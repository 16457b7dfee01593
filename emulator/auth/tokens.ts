import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Clock } from '../clock';
import type { User } from '../store';

/**
 * HS256 bearer tokens with a secret that lives only as long as the process:
 * restarting the emulator invalidates every token, like a key rotation. Times
 * are emulator time, so advancing the clock expires tokens.
 */
export class TokenIssuer {
  private readonly secret = new Uint8Array(randomBytes(32));

  constructor(
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
  ) {}

  issue(user: User): Promise<string> {
    const issuedAt = Math.floor(this.clock.now() / 1000);
    return new SignJWT({ sitesId: user.organization.id })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(user.id))
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + this.ttlSeconds)
      .sign(this.secret);
  }

  /** The user id the token was issued to, or null when it is forged, malformed or expired. */
  async verify(token: string): Promise<number | null> {
    try {
      const { payload } = await jwtVerify(token, this.secret, {
        algorithms: ['HS256'],
        currentDate: new Date(this.clock.now()),
        requiredClaims: ['sub', 'exp', 'iat'],
      });
      const userId = Number(payload.sub);
      return Number.isSafeInteger(userId) ? userId : null;
    } catch {
      return null;
    }
  }
}
