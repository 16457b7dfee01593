import type { Fetched } from '../../src/kernel/fetched';
import { UpstreamError } from '../../src/kernel/failures/upstreamError';
import { createBreaker } from '../../src/upstream/stages/breaker';
import { protectEndpoint } from '../../src/upstream/pipeline';
import { recordEvents, type UpstreamEvent } from '../support/upstreamEvents';
import { MemoryAnswerStore } from '../../src/upstream/stores/memoryAnswerStore';
import { UPSTREAM_PATH_DEFAULTS } from '../../src/config/upstreamPath';

const WHERE = { service: 'recommender', endpoint: '/recommenderexperience/render.json' } as const;
const START = Date.UTC(2026, 10, 23, 12);
const TTL_MS = 60_000;
const STALE_IF_ERROR_MS = 600_000;

interface Upstream {
  /** Inputs the fake upstream was called with, in order. */
  calls: string[];
  /** What the next calls do: answer, fail, or hang until released. */
  mode: 'answer' | 'fail503' | 'fail400' | 'hang';
  release(): void;
}

function setUp(options: { ttlMs?: number } = {}) {
  let now = START;
  const events: UpstreamEvent[] = [];
  const upstream: Upstream = { calls: [], mode: 'answer', release: () => {} };
  const fetch = async (input: string): Promise<Fetched<string[]>> => {
    upstream.calls.push(input);
    if (upstream.mode === 'hang') await new Promise<void>((resolve) => (upstream.release = resolve));
    if (upstream.mode === 'fail503') throw new UpstreamError({ ...WHERE, kind: 'http', status: 503 });
    if (upstream.mode === 'fail400') throw new UpstreamError({ ...WHERE, kind: 'http', status: 400 });
    return { value: [`${input} @ ${now - START}`], fetchedAt: now };
  };
  const observer = recordEvents(events);
  const call = protectEndpoint<string, string[]>({
    ...WHERE,
    keyOf: (input) => `key:${input}`,
    policyOf: () => ({ ttlMs: options.ttlMs ?? TTL_MS, staleIfErrorMs: STALE_IF_ERROR_MS }),
    isAnswer: (value): value is string[] => Array.isArray(value),
    store: new MemoryAnswerStore({ ...UPSTREAM_PATH_DEFAULTS.answerStore, now: () => now }),
    breaker: createBreaker({ ...WHERE, cooldownMs: 10_000, failureThreshold: 1_000, now: () => now, observer }),
    request: fetch,
    now: () => now,
    observer,
  });
  const outcomes = () => events.flatMap((event) => (event.type === 'cache' ? [event.outcome] : []));
  return { call, upstream, outcomes, advance: (ms: number) => (now += ms) };
}

describe('the protected call path', () => {
  test('a fresh answer is served from the cache with its original fetchedAt', async () => {
    const { call, upstream, outcomes, advance } = setUp();
    const first = await call('a');
    advance(TTL_MS - 1);
    const second = await call('a');

    expect(second).toEqual({ ...first, cache: 'hit' });
    expect(first).toEqual({ value: ['a @ 0'], fetchedAt: START, cache: 'miss' });
    expect(upstream.calls).toEqual(['a']);
    expect(outcomes()).toEqual(['miss', 'hit']);
  });

  test('peek reads the cache alone: fresh is a hit, within stale-while-revalidate stale with no refresh started, a miss or an expired answer nothing; never the upstream', async () => {
    const { call, upstream, outcomes, advance } = setUp();
    await expect(call.peek('a')).resolves.toBeUndefined();
    const first = await call('a');
    await expect(call.peek('a')).resolves.toEqual({ ...first, cache: 'hit' });
    advance(TTL_MS);
    await expect(call.peek('a')).resolves.toEqual({ ...first, cache: 'stale' });
    advance(TTL_MS);
    await expect(call.peek('a')).resolves.toBeUndefined();
    upstream.mode = 'fail503';
    await expect(call.peek('a')).resolves.toBeUndefined();
    expect(upstream.calls).toEqual(['a']);
    // Only an answer served is a cache event.
    expect(outcomes()).toEqual(['miss', 'hit', 'stale']);
  });

  test('different inputs never share an answer', async () => {
    const { call, upstream } = setUp();
    const answers = await Promise.all([call('a'), call('b')]);
    expect(answers.map((answer) => answer.value)).toEqual([['a @ 0'], ['b @ 0']]);
    expect(upstream.calls).toEqual(['a', 'b']);
  });

  test('identical calls in flight make one upstream call', async () => {
    const { call, upstream, outcomes } = setUp();
    upstream.mode = 'hang';
    const calls = [call('a'), call('a'), call('a')];
    await new Promise((resolve) => setImmediate(resolve));
    upstream.mode = 'answer';
    upstream.release();

    const answers = await Promise.all(calls);
    expect(new Set(answers.map((answer) => answer.value)).size).toBe(1);
    expect(answers.map((answer) => answer.cache)).toEqual(['miss', 'coalesced', 'coalesced']);
    expect(upstream.calls).toEqual(['a']);
    expect(outcomes()).toEqual(['miss', 'coalesced', 'coalesced']);
  });

  test('an expired answer is served at once while one background refresh replaces it', async () => {
    const { call, upstream, outcomes, advance } = setUp();
    await call('a');
    advance(TTL_MS);
    upstream.mode = 'hang';

    const stale = await Promise.all([call('a'), call('a')]);
    expect(stale.map((answer) => answer.fetchedAt)).toEqual([START, START]);
    expect(stale.map((answer) => answer.cache)).toEqual(['stale', 'stale']);
    expect(upstream.calls).toEqual(['a', 'a']);

    upstream.mode = 'answer';
    upstream.release();
    await new Promise((resolve) => setImmediate(resolve));
    const refreshed = await call('a');
    expect(refreshed).toEqual({ value: [`a @ ${TTL_MS}`], fetchedAt: START + TTL_MS, cache: 'hit' });
    expect(outcomes()).toEqual(['miss', 'stale', 'stale', 'hit']);
  });

  test('an answer older than twice its time to live is fetched again in the foreground', async () => {
    const { call, upstream, outcomes, advance } = setUp();
    await call('a');
    advance(2 * TTL_MS);
    const answer = await call('a');
    expect(answer.fetchedAt).toBe(START + 2 * TTL_MS);
    expect(upstream.calls).toEqual(['a', 'a']);
    expect(outcomes()).toEqual(['miss', 'miss']);
  });

  test('when the upstream fails, an answer up to the stale-if-error age is served instead', async () => {
    const { call, upstream, outcomes, advance } = setUp();
    await call('a');
    advance(STALE_IF_ERROR_MS);
    upstream.mode = 'fail503';

    expect(await call('a')).toEqual({ value: ['a @ 0'], fetchedAt: START, cache: 'stale_if_error' });
    advance(1);
    await expect(call('a')).rejects.toMatchObject({ status: 503 });
    // One event per caller, the outcome it was served: the stale answer is not also counted as a miss.
    expect(outcomes()).toEqual(['miss', 'stale_if_error', 'miss']);
  });

  test('an error about the request is not hidden behind an old answer', async () => {
    const { call, upstream, advance } = setUp();
    await call('a');
    advance(3 * TTL_MS);
    upstream.mode = 'fail400';
    await expect(call('a')).rejects.toMatchObject({ status: 400 });
  });

  test('errors are never cached: the next call tries again', async () => {
    const { call, upstream } = setUp();
    upstream.mode = 'fail503';
    await expect(call('a')).rejects.toMatchObject({ status: 503 });
    upstream.mode = 'answer';
    await expect(call('a')).resolves.toMatchObject({ value: ['a @ 0'] });
    expect(upstream.calls).toEqual(['a', 'a']);
  });

  test('a time to live of 0 turns the cache off', async () => {
    const { call, upstream } = setUp({ ttlMs: 0 });
    await call('a');
    await call('a');
    expect(upstream.calls).toEqual(['a', 'a']);
  });

  test('an entry the store hands back in an unexpected shape is a miss', async () => {
    const store = new MemoryAnswerStore(UPSTREAM_PATH_DEFAULTS.answerStore);
    await store.set('key:a', { value: { not: 'a list' }, fetchedAt: Date.now() }, 60_000);
    const calls: string[] = [];
    const call = protectEndpoint<string, string[]>({
      ...WHERE,
      keyOf: (input) => `key:${input}`,
      policyOf: () => ({ ttlMs: TTL_MS, staleIfErrorMs: 0 }),
      isAnswer: (value): value is string[] => Array.isArray(value),
      store,
      breaker: createBreaker({ ...WHERE, cooldownMs: 1_000, failureThreshold: 5, now: Date.now, observer: recordEvents() }),
      request: async (input) => {
        calls.push(input);
        return { value: [input], fetchedAt: Date.now() };
      },
      now: Date.now,
      observer: recordEvents(),
    });

    await expect(call('a')).resolves.toMatchObject({ value: ['a'] });
    expect(calls).toEqual(['a']);
  });
});
