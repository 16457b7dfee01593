import { FLOOD_ENDED_SUBSCRIPTIONS, FLOOD_QUIET_MS, ReclaimAfterFlood } from '../../src/web/subscriptions/reclaimAfterFlood';

describe('the collection after a flood of ended subscriptions', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const setUp = () => {
    const collections: number[] = [];
    const collect = jest.fn(async () => undefined);
    return { reclaim: new ReclaimAfterFlood(collect, (ended) => collections.push(ended)), collect, collections };
  };
  const end = (reclaim: ReclaimAfterFlood, times: number) => {
    for (let time = 0; time < times; time++) reclaim.subscriptionEnded();
  };

  it('collects once, when the flood has been over for the quiet time', () => {
    const { reclaim, collect, collections } = setUp();
    end(reclaim, FLOOD_ENDED_SUBSCRIPTIONS);
    jest.advanceTimersByTime(FLOOD_QUIET_MS - 1);
    expect(collect).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(collect).toHaveBeenCalledTimes(1);
    expect(collections).toEqual([FLOOD_ENDED_SUBSCRIPTIONS]);
    jest.advanceTimersByTime(10 * FLOOD_QUIET_MS);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('waits while subscriptions keep ending, and counts every one of them', () => {
    const { reclaim, collect, collections } = setUp();
    end(reclaim, FLOOD_ENDED_SUBSCRIPTIONS);
    jest.advanceTimersByTime(FLOOD_QUIET_MS - 1);
    end(reclaim, 1);
    jest.advanceTimersByTime(FLOOD_QUIET_MS - 1);
    expect(collect).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(collections).toEqual([FLOOD_ENDED_SUBSCRIPTIONS + 1]);
  });

  it('takes a flood that pauses for one flood: the count runs on across quiet times until a collection', () => {
    const { reclaim, collect, collections } = setUp();
    end(reclaim, FLOOD_ENDED_SUBSCRIPTIONS - 1);
    jest.advanceTimersByTime(10 * FLOOD_QUIET_MS);
    expect(collect).not.toHaveBeenCalled();
    end(reclaim, 1);
    jest.advanceTimersByTime(FLOOD_QUIET_MS);
    expect(collections).toEqual([FLOOD_ENDED_SUBSCRIPTIONS]);
    // Counted afresh from the collection on.
    end(reclaim, FLOOD_ENDED_SUBSCRIPTIONS - 1);
    jest.advanceTimersByTime(10 * FLOOD_QUIET_MS);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('holds no timer without a collector (the process runs without --expose-gc)', () => {
    const reclaim = new ReclaimAfterFlood(undefined, () => undefined);
    end(reclaim, FLOOD_ENDED_SUBSCRIPTIONS);
    expect(jest.getTimerCount()).toBe(0);
  });
});
