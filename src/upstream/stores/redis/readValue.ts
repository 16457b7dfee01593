import type { SharedRedis } from './sharedRedis';

/**
 * The one place a value read from Redis is parsed: JSON, then the caller's
 * validation (types, finite numbers, times bounded by the caller's clock).
 * Anything else under the key (another version's format, a hand edit, a
 * poisoned value) is a miss: logged once with its key, never its content,
 * and deleted, so the next writer starts clean. `raw` null or undefined is a
 * plain miss.
 */
export function readValue<T>(
  redis: SharedRedis,
  key: string,
  raw: string | null | undefined,
  validate: (parsed: unknown) => T | undefined,
): T | undefined {
  if (raw === null || raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    redis.discardBadValue(key);
    return undefined;
  }
  const value = validate(parsed);
  if (value === undefined) redis.discardBadValue(key);
  return value;
}

/** A plain object's fields, or undefined: the first step of most validations. */
export function fieldsOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
