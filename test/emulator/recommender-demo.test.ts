import { generateDemoData } from '../../emulator/data';
import { renderRecommendations } from '../../emulator/recommender';
import { EmulatorStore } from '../../emulator/store';

const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);

describe('render.json over generated demo data', () => {
  const store = new EmulatorStore();
  generateDemoData(store, { seed: 7, scale: 0.02, now: NOW });
  const experiences = [...store.experiences.values()];

  it('seeds experiences to test', () => {
    expect(experiences.length).toBeGreaterThan(0);
  });

  it.each(experiences.map((e) => [e.name, e] as const))(
    '%s: its own domain, without the canonical article or what the reader read',
    (_name, experience) => {
      const own = store.articles.filter((a) => a.domain === experience.domain);
      const canonical = own[0];
      const readBy = (client: number) => new Set(store.clientRows[client].map((row) => store.articles[store.views.article.data[row]].url));
      // The busiest reader of this domain who has something left to read, so
      // the read-exclusion has something to exclude and the answer cannot be empty.
      const unreadCount = (client: number) => {
        const read = readBy(client);
        return own.filter((a) => a !== canonical && !read.has(a.url)).length;
      };
      const client = store.clientRows
        .map((_rows, index) => index)
        .filter((index) => unreadCount(index) > 0)
        .reduce((best, index) => (readBy(index).size > readBy(best).size ? index : best));
      const clientId = store.clients.values[client];
      const read = readBy(client);
      expect(read.size).toBeGreaterThan(0);

      const outcome = renderRecommendations(
        store,
        new URLSearchParams({ id: experience.id, canonical_url: canonical.url, client_id: clientId }),
        NOW,
      );
      if (!outcome.ok) throw new Error(`expected 200, got ${outcome.status}`);
      const urls = outcome.value.recommendation.map((item) => item.url);

      expect(urls.length).toBeGreaterThan(0);
      expect(urls.length).toBeLessThanOrEqual(experience.size);
      expect(new Set(urls).size).toBe(urls.length);
      const ownUrls = new Set(own.map((a) => a.url));
      expect(urls.filter((u) => !ownUrls.has(u))).toEqual([]);
      expect(urls).not.toContain(canonical.url);
      expect(urls.filter((u) => read.has(u))).toEqual([]);
    },
  );
});
