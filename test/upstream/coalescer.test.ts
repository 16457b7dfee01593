import { Coalescer } from '../../src/upstream/stages/coalescer';
import { deferred } from '../support/deferred';

describe('Coalescer', () => {
  test('identical calls in flight share one start; different keys do not', async () => {
    const coalescer = new Coalescer<string>();
    const started: string[] = [];
    const pending = deferred<string>();
    const start = (key: string) => () => {
      started.push(key);
      return key === 'a' ? pending.promise : Promise.resolve(key);
    };

    const calls = [coalescer.run('a', start('a')), coalescer.run('a', start('a')), coalescer.run('b', start('b'))];
    expect(coalescer.has('a')).toBe(true);
    pending.resolve('answer a');

    await expect(Promise.all(calls)).resolves.toEqual(['answer a', 'answer a', 'b']);
    expect(started).toEqual(['a', 'b']);
  });

  test('a failure rejects every joiner, and the next call starts afresh', async () => {
    const coalescer = new Coalescer<string>();
    let starts = 0;
    const failing = () => {
      starts += 1;
      return Promise.reject(new Error('upstream down'));
    };

    const results = await Promise.allSettled([coalescer.run('k', failing), coalescer.run('k', failing)]);
    const next = await coalescer.run('k', async () => {
      starts += 1;
      return 'recovered';
    });

    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(next).toBe('recovered');
    expect(starts).toBe(2);
    expect(coalescer.has('k')).toBe(false);
  });

  test('a synchronous throw in start rejects instead of throwing', async () => {
    const coalescer = new Coalescer<string>();
    const call = coalescer.run('k', () => {
      throw new Error('boom');
    });
    await expect(call).rejects.toThrow('boom');
  });
});
