import {
  EMULATOR_LIMITS,
  PROFILE_NAMES,
  isProfileName,
  readEmulatorEnv,
  type EmulatorBehaviour,
  type RateOptions,
} from '../contract/emulatorSettings';
import { EmulatorEnv } from '../contract/emulatorEnv';
import { PROFILES, type ProfileRules } from './profiles';

export type { RateOptions };
export { readEmulatorEnv };

/** How to start an emulator; every field has a default. */
export interface EmulatorOptions extends EmulatorBehaviour {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** Where unexpected handler errors are reported; default stderr. */
  logError?: (error: unknown) => void;
}

export type ResolvedOptions = Required<Omit<EmulatorOptions, 'rates'>> & {
  rates: RateOptions;
  /** The profile's rules that have no option of their own. */
  plan: Pick<ProfileRules, 'maxRowsPerPage' | 'unplannedMetrics' | 'latency'>;
};

export const DEFAULT_MAIN_PORT = 4010;

const LIMITS = EMULATOR_LIMITS;

/** Fills defaults and fails with a message naming the option when a value is unusable. */
export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  const profile = options.profile ?? 'default';
  if (!isProfileName(profile)) {
    throw new RangeError(`emulator option profile must be one of ${PROFILE_NAMES.join(', ')}, got ${JSON.stringify(profile)}`);
  }
  const rules = PROFILES[profile];
  const resolved: ResolvedOptions = {
    profile,
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    seed: options.seed ?? 42,
    scale: options.scale ?? 1,
    tokenTtlSeconds: options.tokenTtlSeconds ?? rules.tokenTtlSeconds,
    rates: {
      reportingPerMinute: options.rates?.reportingPerMinute ?? rules.rates.reportingPerMinute,
      signinPerMinute: options.rates?.signinPerMinute ?? rules.rates.signinPerMinute,
      renderPerMinute: options.rates?.renderPerMinute ?? rules.rates.renderPerMinute,
    },
    plan: { maxRowsPerPage: rules.maxRowsPerPage, unplannedMetrics: rules.unplannedMetrics, latency: rules.latency },
    logError: options.logError ?? logToStderr,
  };
  requireInteger('port', resolved.port, LIMITS.port);
  requireInteger('seed', resolved.seed, LIMITS.seed);
  if (!isScale(resolved.scale)) {
    throw new RangeError(`emulator option scale must be a number > 0 and <= ${LIMITS.scale.max}, got ${resolved.scale}`);
  }
  requireInteger('tokenTtlSeconds', resolved.tokenTtlSeconds, LIMITS.tokenTtlSeconds);
  for (const [name, value] of Object.entries(resolved.rates)) requireInteger(`rates.${name}`, value, LIMITS.ratePerMinute);
  return resolved;
}

interface Range {
  min: number;
  max: number;
}

const isInteger = (value: number, { min, max }: Range): boolean => Number.isInteger(value) && value >= min && value <= max;
const isScale = (value: number): boolean => Number.isFinite(value) && value > 0 && value <= LIMITS.scale.max;

function requireInteger(name: string, value: number, range: Range): void {
  if (!isInteger(value, range)) {
    throw new RangeError(`emulator option ${name} must be an integer from ${range.min} to ${range.max}, got ${value}`);
  }
}

function logToStderr(error: unknown): void {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`emulator: unexpected error while handling a request: ${text}\n`);
}

/**
 * Options of `npm run emulator`: where it listens (EMULATOR_PORT,
 * EMULATOR_HOST; `main.ts` defaults the port to 4010) and readEmulatorEnv's.
 * Throws one Error listing every unusable variable.
 */
export function emulatorOptionsFromEnv(env: NodeJS.ProcessEnv): EmulatorOptions {
  const reader = new EmulatorEnv(env);
  const port = reader.integer('EMULATOR_PORT', LIMITS.port);
  const host = reader.text('EMULATOR_HOST');
  const { options, problems } = readEmulatorEnv(env);
  const all = [...reader.problems, ...problems];
  if (all.length > 0) throw new Error(all.join('; '));
  return { ...(port === undefined ? {} : { port }), ...(host === undefined ? {} : { host }), ...options };
}
