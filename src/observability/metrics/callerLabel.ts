import { createHmac, randomBytes } from 'node:crypto';
import type { CallerLabelMode } from '../../config/metrics';
import type { Secret } from '../../redaction/secret';
import { BoundedLabel, CALLER_ID_PATTERN } from './boundedLabel';

export interface CallerLabelOptions {
  /**
   * `hashed` (default): a short keyed hash of the caller's id, so a scrape shows
   * how callers compare but not who they are (an id is often a person's `sub`);
   * `off`: no caller label; `raw`: the id itself, when the operator chooses it.
   */
  mode: CallerLabelMode;
  /** The HMAC key (METRICS_CALLER_LABEL_KEY): the same on every replica gives the same labels; unset: a random key per process. */
  key?: Secret;
}

/** Distinct callers shown (the budget's fair share); the rest share `__other__`. */
const CALLER_LABEL_LIMIT = 50;
/** 12 hex digits (48 bits): short on a dashboard, and no two of a few thousand callers collide in practice. */
const HASH_HEX_DIGITS = 12;
const HASH_PATTERN = new RegExp(`^[0-9a-f]{${HASH_HEX_DIGITS}}$`);

/** A caller id → its label value, bounded; undefined when the label is off. */
export type CallerLabeler = ((id: string) => string) | undefined;

export function callerLabeler(options: CallerLabelOptions = { mode: 'hashed' }): CallerLabeler {
  if (options.mode === 'off') return undefined;
  if (options.mode === 'raw') {
    const bounded = new BoundedLabel(CALLER_LABEL_LIMIT, CALLER_ID_PATTERN);
    return (id) => bounded.valueOf(id);
  }
  const key = options.key?.reveal() ?? randomBytes(32);
  const bounded = new BoundedLabel(CALLER_LABEL_LIMIT, HASH_PATTERN);
  return (id) => bounded.valueOf(createHmac('sha256', key).update(id, 'utf8').digest('hex').slice(0, HASH_HEX_DIGITS));
}
