import type { ParamError } from '../outcome';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

interface Presence {
  /** Missing (undefined) is an error when true; otherwise it yields undefined. */
  required?: boolean;
}

/**
 * Reads the fields of one JSON object, collecting an error per bad field
 * instead of stopping at the first: the contract's 400s name every offender.
 */
export class FieldReader {
  readonly errors: ParamError[] = [];

  constructor(
    private readonly record: Record<string, unknown>,
    private readonly prefix = '',
  ) {}

  path(name: string): string {
    return this.prefix === '' ? name : `${this.prefix}.${name}`;
  }

  fail(name: string, message: string): undefined {
    this.errors.push({ path: this.path(name), message });
    return undefined;
  }

  /** Flags every field not in `allowed`: a typo must not be silently ignored. */
  rejectUnknown(allowed: readonly string[]): void {
    for (const name of Object.keys(this.record)) {
      if (!allowed.includes(name)) this.fail(name, `is not a known field (known: ${allowed.join(', ')})`);
    }
  }

  string(name: string, options: Presence & { nonEmpty?: boolean; maxLength?: number } = {}): string | undefined {
    const value = this.present(name, options);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') return this.fail(name, 'must be a string');
    if (options.nonEmpty && value.trim() === '') return this.fail(name, 'must not be empty');
    if (options.maxLength !== undefined && value.length > options.maxLength) {
      return this.fail(name, `must be at most ${options.maxLength} characters`);
    }
    return value;
  }

  integer(name: string, options: Presence & { min: number; max: number }): number | undefined {
    const value = this.present(name, options);
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < options.min || value > options.max) {
      return this.fail(name, `must be an integer from ${options.min} to ${options.max}`);
    }
    return value;
  }

  number(name: string, options: Presence & { min: number; max: number }): number | undefined {
    const value = this.present(name, options);
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < options.min || value > options.max) {
      return this.fail(name, `must be a number from ${options.min} to ${options.max}`);
    }
    return value;
  }

  boolean(name: string, options: Presence = {}): boolean | undefined {
    const value = this.present(name, options);
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') return this.fail(name, 'must be true or false');
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], options: Presence = {}): T | undefined {
    const value = this.present(name, options);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      return this.fail(name, `must be one of ${allowed.join(', ')}`);
    }
    return value as T;
  }

  stringArray(name: string, options: Presence & { maxItems?: number } = {}): string[] | undefined {
    const value = this.present(name, options);
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) return this.fail(name, 'must be an array of strings');
    if (options.maxItems !== undefined && value.length > options.maxItems) {
      return this.fail(name, `must have at most ${options.maxItems} items`);
    }
    const bad = value.findIndex((item) => typeof item !== 'string' || item.trim() === '');
    if (bad >= 0) return this.fail(`${name}[${bad}]`, 'must be a non-empty string');
    return value as string[];
  }

  /** The raw value, for fields with a shape of their own. */
  raw(name: string, options: Presence = {}): unknown {
    return this.present(name, options);
  }

  private present(name: string, options: Presence): unknown {
    const value = this.record[name];
    if (value === undefined && options.required) this.fail(name, 'is required');
    return value;
  }
}

/** `http:` or `https:` absolute URL, or null. */
export function parseHttpUrl(value: string): URL | null {
  if (!URL.canParse(value)) return null;
  const url = new URL(value);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
}
