import { createHash, timingSafeEqual } from 'node:crypto';
import type { Secret } from '../../redaction/secret';

/**
 * Whether a presented header value is the router's shared secret, in
 * constant time: both sides are hashed first, so neither the content nor
 * the length of the secret shows in how long the comparison takes.
 */
export function isRouterSecret(presented: string, secret: Secret): boolean {
  return timingSafeEqual(digest(presented), digest(secret.reveal()));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
