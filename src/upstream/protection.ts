import { DEFAULT_BREAKER_CONFIG, DEFAULT_CACHE_CONFIG, EMBEDDED_GOVERNOR_CONFIG, type Config } from '../config';
import type { UpstreamObserver } from './observer';

/** Everything the protected call path is configured with; createUpstreams fills what is left out. */
export interface ProtectionOptions {
  cache: Config['cache'];
  governor: Config['governor'];
  breaker: Config['breaker'] & {
    /** Consecutive upstream failures that open a circuit. Default 5. */
    failureThreshold?: number;
  };
  /** Hears every event of the call path, beside the metrics (tests record them). */
  observer?: UpstreamObserver;
  /** The one clock of the call path: freshness, fill waits, the breaker's cool-down, the rates (tests move a fake one). Default Date.now. */
  now?: () => number;
}

/** The defaults of the embedded mode (the emulator's own rates); what createUpstreams uses when given nothing. */
export const DEFAULT_PROTECTION: ProtectionOptions = {
  cache: DEFAULT_CACHE_CONFIG,
  governor: EMBEDDED_GOVERNOR_CONFIG,
  breaker: DEFAULT_BREAKER_CONFIG,
};

export const DEFAULT_BREAKER_FAILURE_THRESHOLD = 5;
