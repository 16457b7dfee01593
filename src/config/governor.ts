import { emulatorRates } from '../../contract/emulatorSettings';
import type { EnvReader } from './env';
import type { EmulatorOptions, UpstreamConfig } from './upstream';

/** The rate governor's budgets (token buckets: a burst of the per-minute budget, refilling evenly). */
export interface GovernorConfig {
  /** Dashboard queries per account. */
  reportingPerMinute: number;
  /** Sign-ins per email. */
  signinPerMinute: number;
  /** render.json calls per recommender host. */
  renderPerMinute: number;
  /** Longest a call waits for its budget before UPSTREAM_RATE_LIMITED. */
  queueTimeoutMs: number;
}

type Rates = Omit<GovernorConfig, 'queueTimeoutMs'>;

const DEFAULT_QUEUE_TIMEOUT_MS = 2_000;

/**
 * Budgets against real hosts, where the plan's limits are not published:
 * public clients of the reporting API observe about one dashboard query per
 * minute per account (docs/budget.md); sign-in stays well under
 * the emulator's 20 per email; render.json has no observed limit, so a
 * moderate one.
 */
const REMOTE_RATES: Rates = { reportingPerMinute: 1, signinPerMinute: 10, renderPerMinute: 600 };

/** Embedded, the governor spends exactly the emulator's budgets (its defaults, or its EMULATOR_*_RATE_PER_MINUTE). */
function embeddedRates(emulator: EmulatorOptions = {}): Rates {
  return emulatorRates(emulator.rates);
}

/** The governor against the embedded emulator with its default budgets: what the call path uses when given nothing. */
export const EMBEDDED_GOVERNOR_CONFIG: Readonly<GovernorConfig> = Object.freeze({
  ...embeddedRates(),
  queueTimeoutMs: DEFAULT_QUEUE_TIMEOUT_MS,
});

export function readGovernor(reader: EnvReader, upstream: UpstreamConfig): GovernorConfig {
  const defaults = upstream.mode === 'embedded' ? embeddedRates(upstream.emulator) : REMOTE_RATES;
  const perMinute = { min: 1, max: 1_000_000_000 };
  return {
    reportingPerMinute: reader.integer('REPORTING_RATE_PER_MINUTE', perMinute) ?? defaults.reportingPerMinute,
    signinPerMinute: reader.integer('SIGNIN_RATE_PER_MINUTE', perMinute) ?? defaults.signinPerMinute,
    renderPerMinute: reader.integer('RENDER_RATE_PER_MINUTE', perMinute) ?? defaults.renderPerMinute,
    queueTimeoutMs: reader.integer('UPSTREAM_QUEUE_TIMEOUT_MS', { min: 0, max: 600_000 }) ?? DEFAULT_QUEUE_TIMEOUT_MS,
  };
}
