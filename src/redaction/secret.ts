import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/**
 * A password that must never reach a log line, an error or a response.
 * Every way an object is usually turned into text (template strings, JSON,
 * console.log / pino, util.inspect) yields `[redacted]`; only an explicit
 * `reveal()` at the one place that sends it upstream gives the value.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    if (typeof value !== 'string' || value.length === 0) {
      throw new TypeError('Secret: expected a non-empty string');
    }
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

/**
 * Every secret this process holds (the upstream password, the `email:password`
 * pair, the current bearer token), and the text forms each can take once it
 * is echoed, escaped or encoded: raw, JSON-escaped (up to three levels, a
 * JSON string inside a JSON string inside a log line), URL-encoded (both
 * percent-hex cases, `+` for spaces) and base64 / base64url, also where the
 * secret sits inside a longer base64 text (a Basic authorization header).
 * `redact` replaces all of them; the redaction at each exit (errors, logs,
 * spans, metrics) goes through it.
 */
export class HeldSecrets {
  readonly #held = new Map<string, number>();
  #pattern: RegExp | undefined;

  /** Starts redacting the value (a token provider calls this for each token it receives). Counted: hold twice, forget twice. */
  hold(value: string | Secret): void {
    const text = typeof value === 'string' ? value : value.reveal();
    if (text.length === 0) return;
    this.#held.set(text, (this.#held.get(text) ?? 0) + 1);
    this.#pattern = undefined;
  }

  /** The password and the `email:password` pair (as an HTTP Basic header would carry it). */
  holdCredentials(email: string, password: string | Secret): void {
    const text = typeof password === 'string' ? password : password.reveal();
    this.hold(text);
    this.hold(`${email}:${text}`);
  }

  /** Stops redacting the value once it is no longer used (an expired token). */
  forget(value: string | Secret): void {
    const text = typeof value === 'string' ? value : value.reveal();
    const count = this.#held.get(text);
    if (count === undefined) return;
    if (count > 1) this.#held.set(text, count - 1);
    else this.#held.delete(text);
    this.#pattern = undefined;
  }

  redact(text: string): string {
    if (this.#held.size === 0) return text;
    this.#pattern ??= patternFor([...this.#held.keys()]);
    return text.replace(this.#pattern, REDACTED);
  }
}

/** The secrets of this process: one set, so every exit redacts what any part of the process holds. */
export const heldSecrets = new HeldSecrets();

/** One regular expression matching every form of every value, longest first (so a form never leaves a tail of a longer one). */
export function patternFor(values: readonly string[]): RegExp {
  const forms = new Set<string>();
  for (const value of values) for (const form of formsOf(value)) forms.add(form);
  const sorted = [...forms].sort((a, b) => b.length - a.length).map(escapeRegExp);
  return new RegExp(sorted.join('|'), 'g');
}

/** Shorter base64 fragments would match unrelated text too often. */
const MIN_EMBEDDED_BASE64_LENGTH = 8;

function formsOf(value: string): string[] {
  const forms = [value];
  let escaped = value;
  for (let level = 0; level < 3; level += 1) {
    escaped = JSON.stringify(escaped).slice(1, -1);
    forms.push(escaped);
  }
  for (const encoded of [encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)]) {
    forms.push(
      encoded,
      encoded.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    );
  }
  const bytes = Buffer.from(value, 'utf8');
  forms.push(bytes.toString('base64'), bytes.toString('base64').replace(/=+$/, ''), bytes.toString('base64url'));
  forms.push(...embeddedBase64(bytes));
  return forms.filter((form) => form.length > 0);
}

/**
 * The part of the base64 text that is the same wherever the value sits in a
 * longer text: for each of the three byte alignments, the characters that
 * encode only the value's own bytes.
 */
function embeddedBase64(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset += 1) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes]);
    const encoded = padded.toString('base64');
    // Characters before `start` mix in the padding bytes; after `end`, the bytes that follow the value.
    const start = Math.ceil((offset * 8) / 6);
    const end = Math.floor((padded.length * 8) / 6);
    const core = encoded.slice(start, end);
    if (core.length >= MIN_EMBEDDED_BASE64_LENGTH) cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return cores;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
