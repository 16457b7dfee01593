/**
 * The emulator's clock stays within dates it can print: a move past the end
 * of year 9999 is a 400 naming the limit, and the clock keeps answering.
 */
import type { RunningEmulator } from '../../emulator';
import { call, startTestEmulator, type ErrorBody } from '../support/emulator';

/** The route's own maximum step (ten years of 366 days). */
const MAX_STEP_SECONDS = 10 * 366 * 86_400;
/** More steps than the years from now to 9999 allow. */
const MAX_STEPS = 900;

let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(() => emulator.close());

describe('POST /__emulator/clock near the end of the date range', () => {
  it('refuses the move that would pass 9999-12-31 with a 400 naming the limit, and GET still answers', async () => {
    let refused: { status: number; body: ErrorBody } | undefined;
    let last = '';
    for (let step = 0; step < MAX_STEPS && refused === undefined; step += 1) {
      const answer = await call<ErrorBody & { now: string }>(emulator, '/__emulator/clock', { body: { advanceSeconds: MAX_STEP_SECONDS } });
      if (answer.status === 200) last = answer.body.now;
      else refused = answer;
    }
    expect(refused?.status).toBe(400);
    expect(refused?.body.msg).toBe('Invalid params');
    expect(refused?.body.errors).toEqual([
      { path: 'advanceSeconds', message: expect.stringContaining('9999-12-31T23:59:59.999Z') as unknown },
    ]);
    expect(last).toMatch(/^9\d{3}-/);

    const clock = await call<{ now: string }>(emulator, '/__emulator/clock');
    expect(clock.status).toBe(200);
    // Real time still passes under the offset: the clock answers a date at or after the last accepted one.
    expect(Date.parse(clock.body.now)).toBeGreaterThanOrEqual(Date.parse(last));
  });

  it('accepts a move that ends within the range, up to the last second of 9999', async () => {
    const now = Date.parse((await call<{ now: string }>(emulator, '/__emulator/clock')).body.now);
    const secondsLeft = Math.floor((Date.UTC(9999, 11, 31, 23, 59, 59, 999) - now) / 1000);
    const within = await call<{ now: string }>(emulator, '/__emulator/clock', { body: { advanceSeconds: secondsLeft - 60 } });
    expect(within.status).toBe(200);
    expect(within.body.now).toMatch(/^9999-12-31T23:5/);
    const past = await call<ErrorBody>(emulator, '/__emulator/clock', { body: { advanceSeconds: 120 } });
    expect(past.status).toBe(400);
  });
});
