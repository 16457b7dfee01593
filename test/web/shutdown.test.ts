import { EventEmitter } from 'node:events';
import { installShutdown, type ShutdownStep } from '../../src/web/shutdown';

function harness(steps: ShutdownStep[], timeoutMs = 1_000) {
  const emitter = new EventEmitter();
  const exits: number[] = [];
  const messages: string[] = [];
  const logger = {
    info: (_: object, message: string) => messages.push(message),
    error: (_: object, message: string) => messages.push(message),
  };
  const handle = installShutdown({ steps, logger, timeoutMs, exit: (code) => exits.push(code), process: emitter });
  return { emitter, exits, messages, handle };
}

function step(name: string, order: string[], run: () => Promise<void> = async () => {}): ShutdownStep {
  return {
    name,
    run: async () => {
      order.push(name);
      await run();
    },
  };
}

afterEach(() => {
  jest.useRealTimers();
});

describe('installShutdown', () => {
  it('runs the steps in order once on SIGTERM, then exits 0', async () => {
    const order: string[] = [];
    const { emitter, exits, handle } = harness([step('server', order), step('upstreams', order), step('emulator', order)]);
    emitter.emit('SIGTERM', 'SIGTERM');
    await handle.shutdown('again');
    expect(order).toEqual(['server', 'upstreams', 'emulator']);
    expect(exits).toEqual([0]);
    handle.dispose();
    expect(emitter.listenerCount('SIGTERM')).toBe(0);
  });

  it('keeps closing after a failed step, and exits 1', async () => {
    const order: string[] = [];
    const { exits, messages, handle } = harness([
      step('server', order, async () => {
        throw new Error('drain failed');
      }),
      step('upstreams', order),
    ]);
    await handle.shutdown('test');
    expect(order).toEqual(['server', 'upstreams']);
    expect(messages).toContain('shutdown step failed');
    expect(exits).toEqual([1]);
  });

  it('exits 1 at once on a second signal', async () => {
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { emitter, exits, handle } = harness([step('server', [], () => stuck)]);
    emitter.emit('SIGINT', 'SIGINT');
    emitter.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([1]);
    release();
    await handle.shutdown('SIGINT');
    expect(exits).toEqual([1, 0]);
  });

  it('exits 1 when the steps outlast the timeout', async () => {
    jest.useFakeTimers();
    const { emitter, exits, messages } = harness([step('server', [], () => new Promise<void>(() => {}))], 5_000);
    emitter.emit('SIGTERM', 'SIGTERM');
    jest.advanceTimersByTime(4_999);
    expect(exits).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(exits).toEqual([1]);
    expect(messages).toContain('shutdown timed out; exiting');
  });
});
