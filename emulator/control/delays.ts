/**
 * Timers for fault delays that `cancelAll` ends at once, so closing the
 * emulator never waits for (or leaves behind) a long injected delay.
 */
export class Delays {
  private readonly pending = new Map<NodeJS.Timeout, () => void>();

  wait(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        resolve();
      }, ms);
      this.pending.set(timer, resolve);
    });
  }

  cancelAll(): void {
    for (const [timer, resolve] of this.pending) {
      clearTimeout(timer);
      resolve();
    }
    this.pending.clear();
  }
}
