import type { TokenIssuer } from './auth/tokens';
import type { Clock } from './clock';
import type { RateLimiter } from './limits/rateLimiter';
import type { Instruments } from './control/instrument';
import type { DashboardPlan } from './dashboard';
import type { EmulatorStore } from './store';

/** Everything the routes share; one per running emulator, nothing module-level. */
export interface EmulatorContext {
  store: EmulatorStore;
  clock: Clock;
  tokens: TokenIssuer;
  /** Costs as much as a password check; used when there is no hash to check against. */
  dummyVerification: (password: string) => Promise<void>;
  limits: { reporting: RateLimiter; signin: RateLimiter; render: RateLimiter };
  instruments: Instruments;
  /** What the account's plan allows on the dashboard (the profile's rows cap and metrics). */
  plan: DashboardPlan;
  randomBytes: (size: number) => Uint8Array;
}
