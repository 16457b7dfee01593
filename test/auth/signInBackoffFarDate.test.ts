/**
 * A sign-in failure with a far end (1e300: a poisoned shared value, or clock
 * skew) never throws where /health/ready and /metrics read it (issue 22,
 * defect 2): the state names the latest date a Date can hold.
 */
import { backoffSeconds, signInState, type SignInFailure } from '../../src/auth/signInBackoff';
import { SIGN_IN_PATH } from '../../src/kernel/wire';

const NOW = Date.UTC(2026, 10, 25, 9);

test('a failure ending at 1e300 gives a readable state and a finite gauge, no RangeError', () => {
  const failure: SignInFailure = {
    reason: 'refused',
    untilMs: 1e300,
    streak: 1,
    error: { service: 'reporting', endpoint: SIGN_IN_PATH, kind: 'http', status: 401 },
  };

  const state = signInState(failure, NOW);

  expect(state).toMatchObject({ state: 'backing_off', reason: 'refused', until: '+275760-09-13T00:00:00.000Z' });
  expect(Number.isFinite(backoffSeconds(state))).toBe(true);
});
