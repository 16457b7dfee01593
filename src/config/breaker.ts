import type { EnvReader } from './env';

export interface BreakerConfig {
  /** How long an upstream's circuit stays open before one probe call. */
  cooldownSeconds: number;
}

export const DEFAULT_BREAKER_CONFIG: Readonly<BreakerConfig> = Object.freeze({ cooldownSeconds: 10 });

export function readBreaker(reader: EnvReader): BreakerConfig {
  // Decimals allowed (e.g. a cool-down of 0.5 s in tests).
  return {
    cooldownSeconds: reader.decimal('BREAKER_COOLDOWN_SECONDS', { above: 0, max: 3_600 }) ?? DEFAULT_BREAKER_CONFIG.cooldownSeconds,
  };
}
