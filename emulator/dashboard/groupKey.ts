import type { DashboardItem } from './types';

/** The row key when there is no groupBy: the one row is the total. */
export const TOTAL_KEY = 'total';

/**
 * A group's `key`: 16 hex digits hashed from its dimension names and values,
 * so it is opaque, short (titles can be long), and stable across queries,
 * pages and emulator restarts. Two 32-bit FNV-1a hashes with different
 * offsets make collisions negligible at the emulator's group counts.
 */
export function groupKey(items: readonly DashboardItem[]): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ 0x5bd1e995;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x01000193) ^ (h2 >>> 15);
    }
    // A separator no dimension value can fake: charCodeAt never exceeds 0xffff.
    h1 = Math.imul(h1 ^ 0x10000, 0x01000193);
    h2 = Math.imul(h2 ^ 0x10000, 0x01000193);
  };
  for (const item of items) {
    mix(item.type);
    mix(item.value);
  }
  return hex(h1) + hex(h2);
}

const hex = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
