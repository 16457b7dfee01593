import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashes as stored in `User.passwordHash`: `scrypt$<salt b64>$<hash b64>`.
 * The cost is fixed (it is not in the string); node's default N=16384 keeps a
 * verification in the tens of milliseconds.
 */
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const SCRYPT_OPTIONS: ScryptOptions = { N: 16384, r: 8, p: 1 };

function derive(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LENGTH, SCRYPT_OPTIONS, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt);
  return `scrypt$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** Constant-time check of `password` against a stored hash; a malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, saltText, keyText] = stored.split('$');
  if (scheme !== 'scrypt' || !saltText || !keyText) return false;
  const expected = Buffer.from(keyText, 'base64');
  if (expected.length !== KEY_LENGTH) return false;
  const actual = await derive(password, Buffer.from(saltText, 'base64'));
  return timingSafeEqual(actual, expected);
}

/**
 * A verification against a hash nobody knows the password of: it does the
 * same work as a real one, so "no such user" costs as long as "wrong password".
 */
export async function createDummyVerification(): Promise<(password: string) => Promise<void>> {
  const hash = await hashPassword(randomBytes(24).toString('base64'));
  return async (password) => {
    await verifyPassword(password, hash);
  };
}
