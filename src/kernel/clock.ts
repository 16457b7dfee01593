/** How the tables tell and wait out time: the real clock in production, a fake one that tests move. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts (and then holds no timer). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Timers that never keep the process alive: a waiting ask or refresh is no reason not to exit. */
export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted === true) return resolve();
      const woken = () => {
        clearTimeout(timeout);
        resolve();
      };
      const timeout = setTimeout(
        () => {
          signal?.removeEventListener('abort', woken);
          resolve();
        },
        Math.max(0, ms),
      );
      timeout.unref();
      signal?.addEventListener('abort', woken, { once: true });
    }),
};
