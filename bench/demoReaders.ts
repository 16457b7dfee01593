import { generateDemoData } from '../emulator/data';
import { EmulatorStore } from '../emulator/store';

/**
 * The busiest readers of the demo data, for personalized requests. The
 * emulator does not list its readers over HTTP, so the benchmark regenerates
 * the same data: reader ids and history sizes depend on the seed and scale
 * only, not on the clock.
 */
export function busiestReaders(seed: number, scale: number, count: number): string[] {
  const store = new EmulatorStore();
  generateDemoData(store, { seed, scale, now: Date.now() });
  return store.clientRows
    .map((rows, client) => ({ client, views: rows.length }))
    .sort((a, b) => b.views - a.views || a.client - b.client)
    .slice(0, count)
    .map(({ client }) => store.clients.values[client]);
}
