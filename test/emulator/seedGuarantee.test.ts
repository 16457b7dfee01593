/**
 * What `EMULATOR_SEED` really guarantees (docs/emulator.md, "Demo data"): the
 * demo data is generated relative to the instant the emulator starts, so the
 * same seed and scale give the same data only for the same start instant, to
 * the second. Across instants the experiences (their ids) stay the same; the
 * articles' times, urls and the page views do not. The experiences do not
 * depend on the scale either: a process test at a small scale names the
 * README's ids.
 */
import { generateDemoData } from '../../emulator/data';
import { EmulatorStore } from '../../emulator/store';

const START = Date.UTC(2026, 10, 21, 12, 34, 56, 789);

function generated(now: number, seed = 42, scale = 0.02): EmulatorStore {
  const store = new EmulatorStore();
  generateDemoData(store, { seed, scale, now });
  return store;
}

function snapshot(store: EmulatorStore) {
  return {
    articles: store.articles.map((a) => [a.url, a.title, a.publishTime]),
    experiences: [...store.experiences.keys()],
    clients: [...store.clients.values],
    views: Array.from(store.views.time.data.slice(0, store.views.length)),
  };
}

describe('the same seed gives the same data', () => {
  it('for the same start instant, to the second (the milliseconds do not matter)', () => {
    expect(snapshot(generated(START - 500))).toEqual(snapshot(generated(START)));
  });

  it('not for another start instant: the same experience ids, but other article times, urls and page views', () => {
    const first = snapshot(generated(START));
    const hourLater = snapshot(generated(START + 3_600_000));

    expect(hourLater.experiences).toEqual(first.experiences);
    expect(hourLater.articles).not.toEqual(first.articles);
    expect(hourLater.articles.map(([url]) => url)).not.toEqual(first.articles.map(([url]) => url));
    expect(hourLater.views).not.toEqual(first.views.map((time) => time + 3_600_000));
  });
});

describe('the experiences depend on the seed only', () => {
  it('the same ids at another scale', () => {
    expect([...generated(START, 42, 0.05).experiences.keys()]).toEqual([...generated(START).experiences.keys()]);
  });
});
