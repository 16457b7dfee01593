import { generateDemoData } from '../emulator/data';
import { EmulatorStore } from '../emulator/store';

/** The site's articles, most read over the last 7 days first, counted in demo data regenerated locally: no upstream budget is spent. */
export function mostReadArticles(seed: number): string[] {
  const store = new EmulatorStore();
  const now = Date.now();
  generateDemoData(store, { seed, scale: 1, now });
  const views = new Float64Array(store.articles.length);
  const { time, article } = store.views;
  for (let row = 0; row < store.views.length; row++) if (time.data[row] >= now - 7 * 86_400_000) views[article.data[row]] += 1;
  return store.articles
    .map((entry, index) => ({ url: entry.url, views: views[index] }))
    .sort((a, b) => b.views - a.views)
    .map((entry) => entry.url);
}
