import type { UpstreamPathSettings } from '../config/upstreamPath';

/** Everything the protected call path is configured with (from the configuration), and the tests' clock. */
export interface ProtectionOptions extends Readonly<UpstreamPathSettings['protection']> {
  /** The one clock of the call path: freshness, fill waits, the breaker's cool-down, the rates (tests move a fake one). Date.now when absent. */
  now?: () => number;
}
