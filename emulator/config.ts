import { EnvReader } from '../src/config/env';
import { PROFILES, isProfileName, PROFILE_NAMES, type ProfileName, type ProfileRules } from './profiles';

/** How to start an emulator; every field has a default. */
export interface EmulatorOptions {
  /** The rules the options below default to (profiles.ts); `default` unless given. */
  profile?: ProfileName;
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** Seed of the demo data and of the fault hit patterns. */
  seed?: number;
  /** Demo data size: 1 = 3,000 articles, 20,000 readers, 500,000 page views. */
  scale?: number;
  tokenTtlSeconds?: number;
  rates?: Partial<RateOptions>;
  /** Where unexpected handler errors are reported; default stderr. */
  logError?: (error: unknown) => void;
}

export interface RateOptions {
  /** Per user, for the dashboard and experiences. */
  reportingPerMinute: number;
  /** Per email (case-insensitive). */
  signinPerMinute: number;
  /** Per client IP. */
  renderPerMinute: number;
}

export type ResolvedOptions = Required<Omit<EmulatorOptions, 'rates'>> & {
  rates: RateOptions;
  /** The profile's rules that have no option of their own. */
  plan: Pick<ProfileRules, 'maxRowsPerPage' | 'unplannedMetrics' | 'latency'>;
};

export const DEFAULT_MAIN_PORT = 4010;

/**
 * Every option's allowed range, defined once: resolveOptions checks options
 * given in code against it and the `EMULATOR_*` parser checks variables
 * against it, so the two cannot disagree.
 */
const LIMITS = {
  port: { min: 0, max: 65_535 },
  seed: { min: 0, max: 2 ** 32 - 1 },
  // The demo-data generator refuses larger scales.
  scale: { max: 10 },
  tokenTtlSeconds: { min: 1, max: 10 * 366 * 86_400 },
  ratePerMinute: { min: 1, max: 1e9 },
} as const;

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

/** Options that change what the emulator serves, and how fast; not where it listens. */
export type EmulatorBehaviour = Pick<EmulatorOptions, 'profile' | 'seed' | 'scale' | 'tokenTtlSeconds' | 'rates'>;

const RATE_VARIABLES = [
  ['EMULATOR_REPORTING_RATE_PER_MINUTE', 'reportingPerMinute'],
  ['EMULATOR_SIGNIN_RATE_PER_MINUTE', 'signinPerMinute'],
  ['EMULATOR_RENDER_RATE_PER_MINUTE', 'renderPerMinute'],
] as const;

/**
 * The one parser of the `EMULATOR_*` variables that shape the data and the
 * limits, shared by `npm run emulator` and the subgraph's embedded emulator
 * (src/config/upstream.ts), read with the subgraph's own EnvReader so both
 * accept the same numbers. Unset or empty variables are left out, so the
 * defaults apply; every unusable one is listed in `problems`, none thrown.
 */
export function readEmulatorEnv(env: NodeJS.ProcessEnv): { options: EmulatorBehaviour; problems: string[] } {
  const reader = new EnvReader(env);
  const options: EmulatorBehaviour = {};
  const profile = reader.oneOf('EMULATOR_PROFILE', PROFILE_NAMES);
  if (profile !== undefined) options.profile = profile;
  const seed = reader.integer('EMULATOR_SEED', LIMITS.seed);
  if (seed !== undefined) options.seed = seed;
  const scale = reader.decimal('EMULATOR_SCALE', { above: 0, max: LIMITS.scale.max });
  if (scale !== undefined) options.scale = scale;
  const ttl = reader.integer('EMULATOR_TOKEN_TTL_SECONDS', LIMITS.tokenTtlSeconds);
  if (ttl !== undefined) options.tokenTtlSeconds = ttl;
  const rates: Partial<RateOptions> = {};
  for (const [name, option] of RATE_VARIABLES) {
    const perMinute = reader.integer(name, LIMITS.ratePerMinute);
    if (perMinute !== undefined) rates[option] = perMinute;
  }
  // A profile's budgets are spelled out, so a reader of `rates` alone (the
  // subgraph's governor defaults) spends what this emulator will allow; the
  // variables set explicitly still win.
  if (profile !== undefined) options.rates = { ...PROFILES[profile].rates, ...rates };
  else if (Object.keys(rates).length > 0) options.rates = rates;
  return { options, problems: reader.problems };
}

/**
 * Options of `npm run emulator`: where it listens (EMULATOR_PORT,
 * EMULATOR_HOST; `main.ts` defaults the port to 4010) and readEmulatorEnv's.
 * Throws one Error listing every unusable variable.
 */
export function emulatorOptionsFromEnv(env: NodeJS.ProcessEnv): EmulatorOptions {
  const reader = new EnvReader(env);
  const port = reader.integer('EMULATOR_PORT', LIMITS.port);
  const host = reader.text('EMULATOR_HOST');
  const { options, problems } = readEmulatorEnv(env);
  const all = [...reader.problems, ...problems];
  if (all.length > 0) throw new Error(all.join('; '));
  return { ...(port === undefined ? {} : { port }), ...(host === undefined ? {} : { host }), ...options };
}
