import { EmulatorEnv } from './emulatorEnv';

/**
 * The `EMULATOR_*` settings both programs read: `npm run emulator`
 * (emulator/config.ts) and the subgraph, which starts an embedded emulator
 * with them and sets its own governor to the budgets that emulator will
 * allow (src/config/governor.ts). Defined once here, so both accept the same
 * values and agree on each profile's budgets.
 */

/** The emulator's profiles (docs/upstream-contract.md §5); emulator/profiles.ts holds their other rules. */
export const PROFILE_NAMES = ['default', 'realistic'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

export function isProfileName(value: unknown): value is ProfileName {
  return (PROFILE_NAMES as readonly unknown[]).includes(value);
}

export interface RateOptions {
  /** Per user, for the dashboard and experiences. */
  reportingPerMinute: number;
  /** Per email (case-insensitive). */
  signinPerMinute: number;
  /** Per client IP. */
  renderPerMinute: number;
}

/** Each profile's budgets and token lifetime: what the emulator allows, and so what the embedded subgraph spends. */
export const PROFILE_BUDGETS: Readonly<Record<ProfileName, { tokenTtlSeconds: number; rates: Readonly<RateOptions> }>> = {
  default: {
    tokenTtlSeconds: 14 * 24 * 60 * 60,
    rates: { reportingPerMinute: 600, signinPerMinute: 20, renderPerMinute: 6000 },
  },
  realistic: {
    // The vendor's current public docs: tokens last up to 30 minutes [docs].
    tokenTtlSeconds: 30 * 60,
    // Public clients wait about 65 s between dashboard queries [seen].
    rates: { reportingPerMinute: 1, signinPerMinute: 20, renderPerMinute: 6000 },
  },
};

/**
 * Every option's allowed range, defined once: the emulator checks options
 * given in code against it and this parser checks variables against it, so
 * the two cannot disagree.
 */
export const EMULATOR_LIMITS = {
  port: { min: 0, max: 65_535 },
  seed: { min: 0, max: 2 ** 32 - 1 },
  // The demo-data generator refuses larger scales.
  scale: { max: 10 },
  tokenTtlSeconds: { min: 1, max: 10 * 366 * 86_400 },
  ratePerMinute: { min: 1, max: 1e9 },
} as const;

/** Options that change what the emulator serves, and how fast; not where it listens. */
export interface EmulatorBehaviour {
  /** The rules the options below default to; `default` unless given. */
  profile?: ProfileName;
  /** Seed of the demo data and of the fault hit patterns. */
  seed?: number;
  /** Demo data size: 1 = 3,000 articles, 20,000 readers, 500,000 page views. */
  scale?: number;
  tokenTtlSeconds?: number;
  rates?: Partial<RateOptions>;
}

const RATE_VARIABLES = [
  ['EMULATOR_REPORTING_RATE_PER_MINUTE', 'reportingPerMinute'],
  ['EMULATOR_SIGNIN_RATE_PER_MINUTE', 'signinPerMinute'],
  ['EMULATOR_RENDER_RATE_PER_MINUTE', 'renderPerMinute'],
] as const;

/**
 * The one parser of the `EMULATOR_*` variables that shape the data and the
 * limits, shared by `npm run emulator` and the subgraph's embedded emulator
 * (src/config/upstream.ts). Unset or empty variables are left out, so the
 * defaults apply; every unusable one is listed in `problems`, none thrown.
 */
export function readEmulatorEnv(env: NodeJS.ProcessEnv): { options: EmulatorBehaviour; problems: string[] } {
  const reader = new EmulatorEnv(env);
  const options: EmulatorBehaviour = {};
  const profile = reader.oneOf('EMULATOR_PROFILE', PROFILE_NAMES);
  if (profile !== undefined) options.profile = profile;
  const seed = reader.integer('EMULATOR_SEED', EMULATOR_LIMITS.seed);
  if (seed !== undefined) options.seed = seed;
  const scale = reader.decimal('EMULATOR_SCALE', { above: 0, max: EMULATOR_LIMITS.scale.max });
  if (scale !== undefined) options.scale = scale;
  const ttl = reader.integer('EMULATOR_TOKEN_TTL_SECONDS', EMULATOR_LIMITS.tokenTtlSeconds);
  if (ttl !== undefined) options.tokenTtlSeconds = ttl;
  const rates: Partial<RateOptions> = {};
  for (const [name, option] of RATE_VARIABLES) {
    const perMinute = reader.integer(name, EMULATOR_LIMITS.ratePerMinute);
    if (perMinute !== undefined) rates[option] = perMinute;
  }
  // A profile's budgets are spelled out, so a reader of `rates` alone (the
  // subgraph's governor defaults) spends what this emulator will allow; the
  // variables set explicitly still win.
  if (profile !== undefined) options.rates = { ...PROFILE_BUDGETS[profile].rates, ...rates };
  else if (Object.keys(rates).length > 0) options.rates = rates;
  return { options, problems: reader.problems };
}

/** The budgets an emulator started with these rates allows: the default profile's, where not given. */
export function emulatorRates(rates: Partial<RateOptions> = {}): RateOptions {
  return { ...PROFILE_BUDGETS.default.rates, ...rates };
}
