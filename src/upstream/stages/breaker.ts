import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, circuitBreaker, handleWhen, type CircuitBreakerPolicy } from 'cockatiel';
import { UpstreamError, failurePolicyOf, type UpstreamService } from '../../kernel/failures/upstreamError';
import type { Observer } from '../../kernel/observer';
import type { Stage } from './stage';

export interface BreakerOptions {
  service: UpstreamService;
  /** The endpoint named in the error of a refused call. */
  endpoint: string;
  /** How long the circuit stays open before one probe is let through (BREAKER_COOLDOWN_SECONDS). */
  cooldownMs: number;
  /** Consecutive failures that open it. */
  failureThreshold: number;
  /** Clock of the cool-down. */
  now: () => number;
  observer: Observer;
}

export interface Breaker {
  /** Runs `call` unless the circuit is open (or probing), in which case it fails at once with `circuit_open`. */
  execute<T>(call: () => Promise<T>): Promise<T>;
}

const STATE_NAMES: Partial<Record<CircuitState, 'open' | 'half_open' | 'closed'>> = {
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half_open',
  [CircuitState.Closed]: 'closed',
};

/** Only upstream outages count (the failure policy's `breaker` column, failures/policy.ts). */
export function isBreakerFailure(error: unknown): boolean {
  return failurePolicyOf(error)?.breaker === true;
}

/**
 * A cockatiel circuit breaker for one upstream, on our clock: cockatiel
 * counts the failures and keeps the state, but reads the global Date.now for
 * its cool-down, so its own cool-down is 0 and this wrapper holds the circuit
 * open for `cooldownMs` on the injected clock instead.
 */
export function createBreaker(options: BreakerOptions): Breaker {
  const policy = circuitBreaker(handleWhen(isBreakerFailure), {
    halfOpenAfter: 0,
    breaker: new ConsecutiveBreaker(options.failureThreshold),
  });
  let openedAt = 0;
  policy.onStateChange((state) => {
    if (state === CircuitState.Open) openedAt = options.now();
    const name = STATE_NAMES[state];
    if (name !== undefined) options.observer.breakerChanged(options.service, name);
  });
  const refused = () => new UpstreamError({ service: options.service, endpoint: options.endpoint, kind: 'circuit_open' });
  return {
    execute: (call) => {
      // cockatiel makes callers wait for the half-open probe; ours fail fast instead, like while open.
      if (policy.state === CircuitState.HalfOpen) return Promise.reject(refused());
      if (policy.state === CircuitState.Open && options.now() - openedAt < options.cooldownMs) return Promise.reject(refused());
      // runThrough's own promise: no async layer of this wrapper's on every call.
      return runThrough(policy, call, refused);
    },
  };
}

/** The breaker stage: every call this process makes to the upstream passes through the endpoint's circuit. */
export function breakerStage<I, T>(breaker: Breaker): Stage<I, T> {
  return (next) => (call) => breaker.execute(() => next(call));
}

async function runThrough<T>(policy: CircuitBreakerPolicy, call: () => Promise<T>, refused: () => UpstreamError): Promise<T> {
  try {
    return await policy.execute(call);
  } catch (error) {
    throw error instanceof BrokenCircuitError ? refused() : error;
  }
}
