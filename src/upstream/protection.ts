import type { Config } from '../config';
import type { AnswerStore } from './answerStore';
import type { BudgetStore } from './budgetStore';
import type { UpstreamEventSink } from './events';

/** Everything the protected call path is configured with; createUpstreams fills what is left out. */
export interface ProtectionOptions {
  cache: Config['cache'];
  governor: Config['governor'];
  breaker: Config['breaker'] & {
    /** Consecutive upstream failures that open a circuit. Default 5. */
    failureThreshold?: number;
  };
  /** Default: a MemoryAnswerStore (the Redis store replaces it when configured). */
  answers?: AnswerStore;
  /** Default: a MemoryBudgetStore. */
  budgets?: BudgetStore;
  /** The metrics hook. */
  onEvent?: UpstreamEventSink;
  /** Clock of freshness and budgets (tests move a fake one). Default Date.now. */
  now?: () => number;
  /** How a call waits its turn in a budget. Default: a timer. */
  sleep?: (ms: number) => Promise<void>;
}

/** The defaults of the embedded mode (the emulator's own budgets); what createUpstreams uses when given nothing. */
export const DEFAULT_PROTECTION: ProtectionOptions = {
  cache: { renderTtlSeconds: 60, dashboardTtlSeconds: 60, staleIfErrorSeconds: 600 },
  governor: { reportingPerMinute: 600, signinPerMinute: 20, renderPerMinute: 6_000, queueTimeoutMs: 2_000 },
  breaker: { cooldownSeconds: 10 },
};

export const DEFAULT_BREAKER_FAILURE_THRESHOLD = 5;
