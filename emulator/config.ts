/** How to start an emulator; every field has a default. */
export interface EmulatorOptions {
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

export type ResolvedOptions = Required<Omit<EmulatorOptions, 'rates'>> & { rates: RateOptions };

export const DEFAULT_MAIN_PORT = 4010;
const DEFAULT_TOKEN_TTL_SECONDS = 14 * 24 * 60 * 60;
// The demo-data generator refuses larger scales.
const MAX_SCALE = 10;

/** Fills defaults and fails with a message naming the option when a value is unusable. */
export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  const resolved: ResolvedOptions = {
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    seed: options.seed ?? 42,
    scale: options.scale ?? 1,
    tokenTtlSeconds: options.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS,
    rates: {
      reportingPerMinute: options.rates?.reportingPerMinute ?? 600,
      signinPerMinute: options.rates?.signinPerMinute ?? 20,
      renderPerMinute: options.rates?.renderPerMinute ?? 6000,
    },
    logError: options.logError ?? logToStderr,
  };
  requireInteger('port', resolved.port, 0, 65535);
  requireInteger('seed', resolved.seed, 0, 2 ** 32 - 1);
  if (!(Number.isFinite(resolved.scale) && resolved.scale > 0 && resolved.scale <= MAX_SCALE)) {
    throw new RangeError(`emulator option scale must be a number > 0 and <= ${MAX_SCALE}, got ${resolved.scale}`);
  }
  requireInteger('tokenTtlSeconds', resolved.tokenTtlSeconds, 1, 10 * 366 * 86_400);
  for (const [name, value] of Object.entries(resolved.rates)) requireInteger(`rates.${name}`, value, 1, 1e9);
  return resolved;
}

function requireInteger(name: string, value: number, min: number, max: number): void {
  if (!(Number.isInteger(value) && value >= min && value <= max)) {
    throw new RangeError(`emulator option ${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
}

function logToStderr(error: unknown): void {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`emulator: unexpected error while handling a request: ${text}\n`);
}

const ENV_INTEGER = /^\d+$/;
const ENV_NUMBER = /^\d+(\.\d+)?$/;

/**
 * Options from `EMULATOR_*` variables. Unset variables are left out (so the
 * defaults apply; `main.ts` defaults the port to 4010); a set but unusable one
 * throws an Error naming it.
 */
export function emulatorOptionsFromEnv(env: NodeJS.ProcessEnv): EmulatorOptions {
  const options: EmulatorOptions = {};
  const port = envNumber(env, 'EMULATOR_PORT', ENV_INTEGER, 0, 65535);
  if (port !== undefined) options.port = port;
  const host = env.EMULATOR_HOST?.trim();
  if (host !== undefined && host !== '') options.host = host;
  const seed = envNumber(env, 'EMULATOR_SEED', ENV_INTEGER, 0, 2 ** 32 - 1);
  if (seed !== undefined) options.seed = seed;
  const scale = envNumber(env, 'EMULATOR_SCALE', ENV_NUMBER, Number.MIN_VALUE, MAX_SCALE);
  if (scale !== undefined) options.scale = scale;
  const ttl = envNumber(env, 'EMULATOR_TOKEN_TTL_SECONDS', ENV_INTEGER, 1, 10 * 366 * 86_400);
  if (ttl !== undefined) options.tokenTtlSeconds = ttl;
  const rates: Partial<RateOptions> = {};
  const reporting = envNumber(env, 'EMULATOR_REPORTING_RATE_PER_MINUTE', ENV_INTEGER, 1, 1e9);
  if (reporting !== undefined) rates.reportingPerMinute = reporting;
  const signin = envNumber(env, 'EMULATOR_SIGNIN_RATE_PER_MINUTE', ENV_INTEGER, 1, 1e9);
  if (signin !== undefined) rates.signinPerMinute = signin;
  const render = envNumber(env, 'EMULATOR_RENDER_RATE_PER_MINUTE', ENV_INTEGER, 1, 1e9);
  if (render !== undefined) rates.renderPerMinute = render;
  if (Object.keys(rates).length > 0) options.rates = rates;
  return options;
}

function envNumber(env: NodeJS.ProcessEnv, name: string, pattern: RegExp, min: number, max: number): number | undefined {
  const text = env[name]?.trim();
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!pattern.test(text) || !(value >= min && value <= max)) {
    const kind = pattern === ENV_INTEGER ? 'an integer' : 'a number';
    const range = min === Number.MIN_VALUE ? `> 0 and <= ${max}` : `from ${min} to ${max}`;
    throw new Error(`${name} must be ${kind} ${range}, got "${text}"`);
  }
  return value;
}
