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
