/**
 * How both programs read a variable's value: the `EMULATOR_*` variables
 * (./emulatorSettings.ts) with this reader as it is, the subgraph's own with
 * src/config/env.ts, which extends it (secret files, booleans, URLs). So the
 * two accept exactly the same integers, decimals and choices, word a problem
 * the same way ("NAME must be ... (got "value")"), and take an unset or empty
 * variable as undefined.
 * Every unusable value is collected in `problems`, none thrown, so one
 * start-up failure lists them all.
 */

export interface IntegerRange {
  readonly min: number;
  readonly max: number;
}

/** Decimals strictly above `above`, up to `max` inclusive. */
export interface DecimalRange {
  readonly above: number;
  readonly max: number;
}

const INTEGER = /^-?\d+$/;
/** Plain decimals only (`0.5`, `2`): an exponent or a bare `.5` is more likely a typo than intended. */
const DECIMAL = /^\d+(\.\d+)?$/;

export class EmulatorEnv {
  readonly problems: string[] = [];

  constructor(protected readonly env: NodeJS.ProcessEnv) {}

  /** The value as given, or undefined when unset or empty (how container tooling usually "unsets" a variable). */
  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? undefined : String(value);
  }

  /** The value with surrounding whitespace removed; undefined when unset or blank. */
  text(name: string): string | undefined {
    const text = this.raw(name)?.trim();
    return text === undefined || text === '' ? undefined : text;
  }

  integer(name: string, range: IntegerRange): number | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    const text = raw.trim();
    const value = INTEGER.test(text) ? Number(text) : Number.NaN;
    if (Number.isSafeInteger(value) && value >= range.min && value <= range.max) return value;
    this.problems.push(`${name} must be an integer from ${range.min} to ${range.max} (got ${JSON.stringify(raw)})`);
    return undefined;
  }

  decimal(name: string, range: DecimalRange): number | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    const text = raw.trim();
    const value = DECIMAL.test(text) ? Number(text) : Number.NaN;
    if (Number.isFinite(value) && value > range.above && value <= range.max) return value;
    this.problems.push(`${name} must be a number > ${range.above} and <= ${range.max} (got ${JSON.stringify(raw)})`);
    return undefined;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    const found = allowed.find((value) => value === raw);
    if (found === undefined) this.problems.push(`${name} must be one of ${allowed.join(', ')} (got ${JSON.stringify(raw)})`);
    return found;
  }
}
