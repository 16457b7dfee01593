/** How the tables tell and wait out time: the real clock in production, a fake one that tests move. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** Timers that never keep the process alive: a waiting ask or refresh is no reason not to exit. */
export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms) =>
    new Promise((resolve) => {
      setTimeout(resolve, Math.max(0, ms)).unref();
    }),
};
