import { failure, ok, type Outcome } from '../outcome';
import type { EmulatorStore, User } from '../store';
import { verifyPassword } from './passwords';
import { apiAccessRefusal, SSO_ADMIN_REFUSED, SSO_API_PASSWORD_MISSING } from './roles';

const INVALID_CREDENTIALS = 'Invalid credentials';

/**
 * The account rules of docs/upstream-contract.md §1. Credentials are checked before anything
 * about the account is revealed, with one exception the contract itself
 * makes: an SSO user without an API password has nothing to check against.
 */
export async function checkSignIn(
  store: EmulatorStore,
  email: string,
  password: string,
  dummyVerification: (password: string) => Promise<void>,
): Promise<Outcome<User>> {
  const user = store.userByEmail(email);
  if (!user) {
    await dummyVerification(password);
    return failure(401, INVALID_CREDENTIALS);
  }
  // In an SSO organization the web password belongs to the identity provider;
  // the API signs in with the separate API password.
  const hash = user.organization.ssoEnforced ? user.apiPasswordHash : user.passwordHash;
  if (hash === null) {
    await dummyVerification(password);
    if (!user.organization.ssoEnforced) return failure(401, INVALID_CREDENTIALS);
    return failure(403, user.roles.includes('admin') ? SSO_ADMIN_REFUSED : SSO_API_PASSWORD_MISSING);
  }
  if (!(await verifyPassword(password, hash))) return failure(401, INVALID_CREDENTIALS);
  const refusal = apiAccessRefusal(user);
  return refusal === null ? ok(user) : failure(403, refusal);
}
