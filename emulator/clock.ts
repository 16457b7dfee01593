/**
 * The emulator's clock: real time plus an offset that only moves forward
 * (`POST /__emulator/clock`). Token expiry, rate-limit windows and the
 * dashboard's relative windows all read it, so tests can age data and tokens
 * without waiting.
 */
export class Clock {
  /**
   * The latest instant the clock may show. Dates stay four-digit years, which
   * every ISO-8601 printer and the dashboards' bucket keys handle; JavaScript
   * dates themselves end at year 275760, after which they are NaN.
   */
  static readonly LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

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
    const latestSeconds = this.secondsLeft();
    if (seconds > latestSeconds) {
      throw new ClockRangeError(
        `would move the clock past ${new Date(Clock.LATEST_MS).toISOString()}, the latest date the emulator shows; at most ${latestSeconds} seconds are left`,
      );
    }
    this.offsetMs += seconds * 1000;
  }

  /** Whole seconds the clock can still advance before it would pass LATEST_MS. */
  secondsLeft(): number {
    return Math.max(0, Math.floor((Clock.LATEST_MS - this.now()) / 1000));
  }
}

/** A clock move that would leave the range of dates the emulator can show. */
export class ClockRangeError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'ClockRangeError';
  }
}
