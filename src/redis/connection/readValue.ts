import type { Attempt, SharedRedis } from './sharedRedis';

/**
 * The one place a value read from Redis is checked, and a key repaired:
 *
 * - `readValue` / `readField` / `readMembers`: JSON (for values and fields),
 *   then the caller's validation (types, finite numbers, times bounded by the
 *   caller's clock). Anything else (another version's format, a hand edit, a
 *   poisoned value) is a miss: logged once with its key, never its content,
 *   counted (`BADVALUE`) and deleted (the key, or only its bad field or
 *   member), so the next writer starts clean.
 * - `repairWrongType` / `repairWrongTypes`: a command Redis refused because
 *   the key holds another type (WRONGTYPE) deletes the key the same way. In a
 *   transaction or pipeline the refused command does not stop the others (a
 *   `PEXPIRE` after a refused `HSET` would keep the wrong key alive), so the
 *   results of each are looked at too.
 *
 * The scripts check the type themselves (budget buckets, the replica roster,
 * demand); the token and Apollo's cache read with MGET (another type reads as
 * a miss) and write with a plain SET, which replaces a key of any type.
 */
export function readValue<T>(
  redis: SharedRedis,
  key: string,
  raw: string | null | undefined,
  validate: (parsed: unknown) => T | undefined,
): T | undefined {
  if (raw === null || raw === undefined) return undefined;
  const value = parseAndValidate(raw, validate);
  if (value === undefined) redis.discardBadValue(key);
  return value;
}

/** One field of a hash: a bad one is a miss, and only that field is deleted. */
export function readField<T>(
  redis: SharedRedis,
  key: string,
  field: string,
  raw: string | null | undefined,
  validate: (parsed: unknown) => T | undefined,
): T | undefined {
  if (raw === null || raw === undefined) return undefined;
  const value = parseAndValidate(raw, validate);
  if (value === undefined) redis.discardBadValue(key, { field });
  return value;
}

/** The members of a set that `isGood` accepts; each other member is deleted. */
export function readMembers<T extends string>(
  redis: SharedRedis,
  key: string,
  members: readonly string[],
  isGood: (member: string) => member is T,
): T[] {
  const good: T[] = [];
  for (const member of members) {
    if (isGood(member)) good.push(member);
    else redis.discardBadValue(key, { member });
  }
  return good;
}

/** A command on `key` that Redis refused with WRONGTYPE: the key is deleted (logged, counted), so the next write recreates it. */
export function repairWrongType<T>(redis: SharedRedis, key: string, attempt: Attempt<T>): Attempt<T> {
  if (!attempt.ok && attempt.failure === 'refused' && attempt.reason === 'WRONGTYPE') redis.discardBadValue(key);
  return attempt;
}

/** What ioredis's `exec()` of a pipeline or transaction resolves to: one `[error, result]` per command. */
export type BatchResults = [Error | null, unknown][] | null;

/**
 * The results of a pipeline or transaction whose command `i` was on
 * `keys[i]`: each key with a command refused as WRONGTYPE is deleted. Returns
 * whether every command succeeded.
 */
export function repairWrongTypes(redis: SharedRedis, keys: readonly string[], attempt: Attempt<BatchResults>): boolean {
  if (!attempt.ok) return false;
  const results = attempt.value ?? [];
  const wrong = new Set<string>();
  results.forEach(([error], index) => {
    const key = keys[index];
    if (error !== null && key !== undefined && /^WRONGTYPE/.test(error.message)) wrong.add(key);
  });
  for (const key of wrong) redis.discardBadValue(key);
  return attempt.value !== null && results.every(([error]) => error === null);
}

/** A plain object's fields, or undefined: the first step of most validations. */
export function fieldsOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A count or amount as the subgraph writes it: a finite number, not below 0. */
export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function parseAndValidate<T>(raw: string, validate: (parsed: unknown) => T | undefined): T | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  return validate(parsed);
}
