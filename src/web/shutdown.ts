/** One thing to close on the way out, e.g. the HTTP server or the upstream connection pool. */
export interface ShutdownStep {
  name: string;
  run(): Promise<void>;
}

export interface ShutdownOptions {
  steps: readonly ShutdownStep[];
  logger: { info(object: object, message: string): void; error(object: object, message: string): void };
  /** After this long the process exits anyway, with 1. */
  timeoutMs: number;
  exit(code: number): void;
  signals?: readonly NodeJS.Signals[];
  process?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
}

export interface ShutdownHandle {
  /** Runs the steps in order (once), then exits with 0, or 1 when a step failed. */
  shutdown(reason: string): Promise<void>;
  /** Removes the signal handlers (for tests). */
  dispose(): void;
}

/**
 * Graceful shutdown on SIGTERM/SIGINT: the steps run in order (stop
 * accepting and drain, then close what the drained requests were using).
 * A second signal or the timeout forces the exit, so a stuck connection can
 * never keep an orchestrator waiting.
 */
export function installShutdown(options: ShutdownOptions): ShutdownHandle {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const target = options.process ?? process;
  let running: Promise<void> | undefined;

  const shutdown = (reason: string): Promise<void> => {
    running ??= runSteps(reason);
    return running;
  };

  const runSteps = async (reason: string): Promise<void> => {
    options.logger.info({ reason }, 'shutting down');
    const timer = setTimeout(() => {
      options.logger.error({ timeoutMs: options.timeoutMs }, 'shutdown timed out; exiting');
      options.exit(1);
    }, options.timeoutMs);
    // The timer must not be what keeps a finished process alive.
    timer.unref();
    let failed = false;
    for (const step of options.steps) {
      try {
        await step.run();
      } catch (error) {
        failed = true;
        options.logger.error({ step: step.name, err: error }, 'shutdown step failed');
      }
    }
    clearTimeout(timer);
    options.logger.info({ reason }, 'shut down');
    options.exit(failed ? 1 : 0);
  };

  const onSignal = (signal: NodeJS.Signals): void => {
    if (running !== undefined) {
      options.logger.error({ signal }, 'second signal during shutdown; exiting now');
      options.exit(1);
      return;
    }
    void shutdown(signal);
  };

  for (const signal of signals) target.on(signal, onSignal);
  return {
    shutdown,
    dispose: () => {
      for (const signal of signals) target.off(signal, onSignal);
    },
  };
}
