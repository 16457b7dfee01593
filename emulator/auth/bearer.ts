import { failure, ok, type Outcome } from '../outcome';
import type { EmulatorStore, User } from '../store';
import { apiAccessRefusal } from './roles';
import type { TokenIssuer } from './tokens';

const UNAUTHORIZED = 'Unauthorized';
const BEARER = /^Bearer +([A-Za-z0-9_\-.]+) *$/i;

/**
 * `Authorization: Bearer <token>` → the user, re-checking the account rules
 * so that a role removed after sign-in is refused (403) at once.
 */
export async function authenticateBearer(
  authorization: string | undefined,
  tokens: TokenIssuer,
  store: EmulatorStore,
): Promise<Outcome<User>> {
  const match = authorization === undefined ? null : BEARER.exec(authorization);
  if (!match) return failure(401, UNAUTHORIZED);
  const userId = await tokens.verify(match[1]);
  if (userId === null) return failure(401, UNAUTHORIZED);
  const user = store.users.find((u) => u.id === userId);
  if (!user) return failure(401, UNAUTHORIZED);
  const refusal = apiAccessRefusal(user);
  return refusal === null ? ok(user) : failure(403, refusal);
}
