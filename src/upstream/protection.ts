import type { UpstreamPathSettings } from '../config/upstreamPath';
import type { UpstreamObserver } from './observer';

/** Everything the protected call path is configured with (from the configuration), and the tests' hooks. */
export interface ProtectionOptions extends Readonly<UpstreamPathSettings['protection']> {
  /** Hears every event of the call path, beside the metrics (tests record them). */
  observer?: UpstreamObserver;
  /** The one clock of the call path: freshness, fill waits, the breaker's cool-down, the rates (tests move a fake one). Date.now when absent. */
  now?: () => number;
}
