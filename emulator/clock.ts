/**
 * The emulator's clock: real time plus an offset that only moves forward
 * (`POST /__emulator/clock`). Token expiry, rate-limit windows and the
 * dashboard's relative windows all read it, so tests can age data and tokens
 * without waiting.
 */
export class Clock {
  private offsetMs = 0;

  constructor(private readonly realNow: () => number = Date.now) {}

  /** Epoch milliseconds in emulator time. */
  now(): number {
    return this.realNow() + this.offsetMs;
  }

  advance(seconds: number): void {
    if (!(Number.isFinite(seconds) && seconds >= 0)) {
      throw new RangeError(`advanceSeconds must be a finite number >= 0, got ${seconds}`);
    }
    this.offsetMs += seconds * 1000;
  }
}
