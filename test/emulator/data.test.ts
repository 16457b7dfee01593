import { randomBytes } from 'node:crypto';
import {
  CPM_MICROS,
  DEMO_DOMAINS,
  RFV_WINDOW_MS,
  SECTIONS,
  TRAFFIC_VALUES,
  VOCABULARY,
  enrichPageView,
  generateDemoData,
  newExperienceId,
  type PageViewInput,
} from '../../emulator/data';
import { generateArticles } from '../../emulator/data/articles';
import { demoBuckets } from '../../emulator/data/domains';
import { Random } from '../../emulator/data/random';
import { EmulatorStore, RANKING_PROFILES, TRAFFIC_DIMENSIONS, type PageViewRow, type TrafficDimension } from '../../emulator/store';

const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 10, 21, 12, 34, 56, 789);

function demoStore(seed = 7, scale = 0.01): EmulatorStore {
  const store = new EmulatorStore();
  generateDemoData(store, { seed, scale, now: NOW });
  return store;
}

/** Reads row `i` back out of the column store. */
function rowAt(store: EmulatorStore, i: number): PageViewRow {
  const v = store.views;
  const traffic = Object.fromEntries(
    TRAFFIC_DIMENSIONS.map((d) => [d, v.traffic[d].dictionary.values[v.traffic[d].column.data[i]]]),
  ) as Record<TrafficDimension, string>;
  return {
    article: v.article.data[i],
    clientId: store.clients.values[v.client.data[i]],
    time: v.time.data[i],
    durationSeconds: v.duration.data[i],
    scroll: v.scroll.data[i],
    adsImpressions: v.ads.data[i],
    revenueMicros: v.revenueMicros.data[i],
    rfv: v.rfv.data[i],
    traffic,
  };
}

function allRows(store: EmulatorStore): PageViewRow[] {
  return Array.from({ length: store.views.length }, (_, i) => rowAt(store, i));
}

/** Title words that carry meaning (no short function words). */
function titleWords(title: string): Set<string> {
  return new Set(
    title
      .toLowerCase()
      .split(/[^a-z]+/)
      .filter((w) => w.length >= 5),
  );
}

// Generated once per scale and shared by the read-only tests below.
const tiny = demoStore();
const small = demoStore(7, 0.05);

describe('generateDemoData', () => {
  it('gives identical stores for the same seed', () => {
    const again = demoStore();
    expect(again.articles).toEqual(tiny.articles);
    expect(again.clients.values).toEqual(tiny.clients.values);
    expect(allRows(again)).toEqual(allRows(tiny));
    expect([...again.experiences.values()]).toEqual([...tiny.experiences.values()]);
  });

  it('gives different data for another seed', () => {
    const other = demoStore(8);
    expect(other.articles.map((a) => a.title)).not.toEqual(tiny.articles.map((a) => a.title));
    expect(other.clients.values).not.toEqual(tiny.clients.values);
    expect([...other.experiences.keys()]).not.toEqual([...tiny.experiences.keys()]);
  });

  it('scales the counts linearly', () => {
    for (const [store, scale] of [
      [tiny, 0.01],
      [small, 0.05],
    ] as const) {
      expect(store.articles).toHaveLength(Math.round(3000 * scale));
      expect(store.clients.size).toBe(Math.round(20_000 * scale));
      expect(store.views.length).toBe(Math.round(500_000 * scale));
    }
  });

  it('still covers every site, section and ranking profile at a tiny scale', () => {
    const store = demoStore(3, 0.0001);
    for (const site of DEMO_DOMAINS) {
      for (const section of Object.keys(site.sections)) {
        expect(store.articles.some((a) => a.domain === site.domain && a.sections[0] === section)).toBe(true);
      }
    }
    expect(new Set(store.articles.map((a) => a.sections[0]))).toEqual(new Set(SECTIONS));
    const profiles = new Set([...store.experiences.values()].map((e) => e.rankingProfile));
    expect(profiles).toEqual(new Set(RANKING_PROFILES));
    expect(store.views.length).toBeGreaterThanOrEqual(store.clients.size);
  });

  it('puts every view after its article was published and inside the 30 days before now', () => {
    for (const store of [tiny, small]) {
      const { time, article } = store.views;
      const outside: number[] = [];
      for (let i = 0; i < store.views.length; i++) {
        const t = time.data[i];
        if (t < store.articles[article.data[i]].publishTime || t < NOW - 30 * DAY_MS || t > NOW) outside.push(i);
      }
      expect(outside).toEqual([]);
    }
  });

  it('appends views in time order', () => {
    const { time } = small.views;
    const unordered: number[] = [];
    for (let i = 1; i < small.views.length; i++) if (time.data[i] < time.data[i - 1]) unordered.push(i);
    expect(unordered).toEqual([]);
  });

  it('publishes articles over the last 45 days, a few every hour recently', () => {
    const times = small.articles.map((a) => a.publishTime);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(NOW - 45 * DAY_MS);
    expect(Math.max(...times)).toBeLessThanOrEqual(NOW);
    expect(times.some((t) => t < NOW - 30 * DAY_MS)).toBe(true);
    const lastDay = times.filter((t) => t > NOW - DAY_MS).length;
    expect(lastDay).toBeGreaterThanOrEqual(3);
  });

  it('builds urls, images, authors and sections the way a news site does', () => {
    const urls = new Set<string>();
    for (const a of small.articles) {
      const site = DEMO_DOMAINS.find((d) => d.domain === a.domain);
      expect(site).toBeDefined();
      const date = new Date(a.publishTime).toISOString().slice(0, 10).replaceAll('-', '/');
      const match = /^https:\/\/([a-z.]+)\/([a-z]+)\/(\d{4}\/\d{2}\/\d{2})\/([a-z0-9-]+)$/.exec(a.url);
      expect(match?.slice(1)).toEqual([a.domain, a.sections[0].toLowerCase(), date, expect.any(String)]);
      expect(a.img).toBe(`https://img.${a.domain}/${match?.[4]}.jpg`);
      expect(a.authors.length).toBeGreaterThanOrEqual(1);
      expect(a.authors.length).toBeLessThanOrEqual(3);
      expect(new Set(a.authors).size).toBe(a.authors.length);
      expect(a.sections.length).toBeGreaterThanOrEqual(1);
      expect(a.sections.length).toBeLessThanOrEqual(2);
      for (const s of a.sections) expect(Object.keys(site?.sections ?? {})).toContain(s);
      expect(a.publishTime % 1000).toBe(0);
      urls.add(a.url);
    }
    expect(urls.size).toBe(small.articles.length);
  });

  it('seeds at least one experience per ranking profile, with valid ids and settings', () => {
    const experiences = [...tiny.experiences.values()];
    for (const profile of RANKING_PROFILES) {
      expect(experiences.some((e) => e.rankingProfile === profile)).toBe(true);
    }
    for (const [key, e] of tiny.experiences) {
      expect(e.id).toBe(key);
      expect(e.id).toMatch(/^IL_[A-Za-z0-9_-]{22}$/);
      expect(e.size).toBeGreaterThanOrEqual(6);
      expect(e.size).toBeLessThanOrEqual(10);
      const site = DEMO_DOMAINS.find((d) => d.domain === e.domain);
      for (const s of [...(e.sections.include ?? []), ...(e.sections.exclude ?? [])]) {
        expect(Object.keys(site?.sections ?? {})).toContain(s);
      }
    }
    expect(experiences.some((e) => (e.sections.include?.length ?? 0) > 0)).toBe(true);
    expect(experiences.some((e) => (e.sections.exclude?.length ?? 0) > 0)).toBe(true);
    expect(new Set(experiences.map((e) => e.domain)).size).toBeGreaterThan(1);
  });

  it('makes titles of one section share words that other sections do not use', () => {
    // Titles only: a catalogue the size of scale 1 gives stable word counts per section.
    const { articles } = generateArticles(Random.stream(5, 0), 3000, demoBuckets(), Math.floor(NOW / 1000) * 1000);
    const topWords = new Map<string, string[]>();
    for (const section of SECTIONS) {
      const counts = new Map<string, number>();
      for (const a of articles.filter((x) => x.sections[0] === section)) {
        for (const w of titleWords(a.title)) counts.set(w, (counts.get(w) ?? 0) + 1);
      }
      const top = [...counts]
        .sort((x, y) => y[1] - x[1])
        .slice(0, 3)
        .map(([w]) => w);
      topWords.set(section, top);
      const vocabulary = Object.values(VOCABULARY[section]).flat().join(' ').toLowerCase();
      for (const w of top) expect(vocabulary).toContain(w);
    }
    const all = [...topWords.values()].flat();
    expect(new Set(all).size).toBe(all.length);

    // Two titles of the same section share a word far more often than two of different sections.
    const sample = articles.slice(0, 600);
    const words = sample.map((a) => titleWords(a.title));
    const pairs = { same: 0, sameSharing: 0, cross: 0, crossSharing: 0 };
    for (let i = 0; i < sample.length; i++) {
      for (let j = i + 1; j < sample.length; j++) {
        const sharing = [...words[i]].some((w) => words[j].has(w)) ? 1 : 0;
        if (sample[i].sections[0] === sample[j].sections[0]) {
          pairs.same++;
          pairs.sameSharing += sharing;
        } else {
          pairs.cross++;
          pairs.crossSharing += sharing;
        }
      }
    }
    expect(pairs.sameSharing / pairs.same).toBeGreaterThan((3 * pairs.crossSharing) / pairs.cross);
  });

  it('skews readers: most read a little, loyal ones read a lot within one or two sections', () => {
    const perReader = small.clientRows.map((rows) => rows.length).sort((a, b) => a - b);
    const median = perReader[Math.floor(perReader.length / 2)];
    expect(perReader.filter((n) => n <= 3).length / perReader.length).toBeGreaterThan(0.3);
    expect(perReader[perReader.length - 1]).toBeGreaterThan(10 * median);

    const concentration: number[] = [];
    small.clientRows.forEach((rows) => {
      if (rows.length < 30) return;
      const bySection = new Map<string, number>();
      for (const row of rows) {
        const a = small.articles[small.views.article.data[row]];
        const key = `${a.domain}/${a.sections[0]}`;
        bySection.set(key, (bySection.get(key) ?? 0) + 1);
      }
      const [first = 0, second = 0] = [...bySection.values()].sort((a, b) => b - a);
      concentration.push((first + second) / rows.length);
    });
    expect(concentration.length).toBeGreaterThan(10);
    expect(concentration.reduce((a, b) => a + b, 0) / concentration.length).toBeGreaterThan(0.6);
  });

  it('skews articles: a few hits, most views in the first days after publishing', () => {
    const perArticle = new Array<number>(small.articles.length).fill(0);
    let early = 0;
    for (let i = 0; i < small.views.length; i++) {
      const a = small.views.article.data[i];
      perArticle[a]++;
      if (small.views.time.data[i] - small.articles[a].publishTime < 2 * DAY_MS) early++;
    }
    perArticle.sort((a, b) => b - a);
    const topTenth = perArticle.slice(0, Math.ceil(perArticle.length / 10)).reduce((a, b) => a + b, 0);
    expect(topTenth / small.views.length).toBeGreaterThan(0.3);
    expect(early / small.views.length).toBeGreaterThan(0.5);
  });

  it('uses only the documented traffic values, mostly on mobile and without a campaign', () => {
    const rows = allRows(small);
    for (const d of TRAFFIC_DIMENSIONS) {
      const seen = new Set(rows.map((r) => r.traffic[d]));
      expect([...seen].filter((value) => !TRAFFIC_VALUES[d].includes(value))).toEqual([]);
    }
    const share = (f: (r: PageViewRow) => boolean) => rows.filter(f).length / rows.length;
    expect(share((r) => r.traffic.deviceType === 'mobile')).toBeGreaterThan(0.5);
    expect(share((r) => r.traffic.campaign === '(none)')).toBeGreaterThan(0.7);
    expect(share((r) => r.traffic.userType === 'subscriber')).toBeGreaterThan(0);
    expect(rows.filter((r) => !(r.scroll >= 0 && r.scroll <= 100 && r.rfv >= 0 && r.durationSeconds >= 0))).toEqual([]);
  });

  it('scores ads, revenue and RFV by the same rules as enrichPageView', () => {
    for (let i = 0; i < small.views.length; i += 97) {
      const row = rowAt(small, i);
      const { adsImpressions, revenueMicros, rfv, ...input } = row;
      const enriched = enrichPageView(small, input);
      expect({ adsImpressions, revenueMicros, rfv }).toEqual({
        adsImpressions: enriched.adsImpressions,
        revenueMicros: enriched.revenueMicros,
        rfv: Math.fround(enriched.rfv), // the store keeps RFV as float32
      });
    }
  });

  it('rejects bad options and a store that already has data', () => {
    expect(() => generateDemoData(new EmulatorStore(), { seed: 1.5, scale: 1, now: NOW })).toThrow(/seed/);
    expect(() => generateDemoData(new EmulatorStore(), { seed: 1, scale: 0, now: NOW })).toThrow(/scale/);
    expect(() => generateDemoData(new EmulatorStore(), { seed: 1, scale: 0.01, now: NaN })).toThrow(/now/);
    expect(() => generateDemoData(tiny, { seed: 1, scale: 0.01, now: NOW })).toThrow(/empty store/);
  });
});

describe('enrichPageView', () => {
  const store = demoStore(11);
  const economy = store.articles.findIndex((a) => a.sections[0] === 'Economy');
  const sports = store.articles.findIndex((a) => a.sections[0] === 'Sports');
  let readers = 0;
  const hit = (overrides: Partial<PageViewInput> = {}): PageViewInput => ({
    article: economy,
    clientId: `never-seen-${++readers}`,
    time: NOW,
    ...overrides,
  });

  it('fills the defaults of a bare hit', () => {
    const row = enrichPageView(store, hit({ clientId: 'bare' }));
    expect(row).toEqual({
      article: economy,
      clientId: 'bare',
      time: NOW,
      durationSeconds: 0,
      scroll: 0,
      adsImpressions: 1,
      revenueMicros: expect.any(Number),
      rfv: 0,
      traffic: {
        source: 'direct',
        sourceInternal: 'none',
        medium: '(none)',
        mediumInternal: 'none',
        campaign: '(none)',
        campaignInternal: '(none)',
        deviceType: 'desktop',
        userType: 'new',
      },
    });
    expect(row.revenueMicros).toBeGreaterThan(0);
  });

  it('derives the medium from the source unless one is given', () => {
    const medium = (traffic: PageViewInput['traffic']) => enrichPageView(store, hit({ traffic })).traffic.medium;
    expect(medium({ source: 'newsletter' })).toBe('email');
    expect(medium({ source: 'google' })).toBe('organic');
    expect(medium({ source: 'facebook' })).toBe('social');
    expect(medium({ source: 'partner.example' })).toBe('referral');
    expect(medium({ source: 'google', medium: 'cpc' })).toBe('cpc');
    expect(enrichPageView(store, hit({ traffic: { sourceInternal: 'recommender' } })).traffic.mediumInternal).toBe('widget');
  });

  it('shows more ads on longer reads, up to the slots of the device, and none to subscribers', () => {
    const ads = (durationSeconds: number, deviceType: string, userType = 'returning') =>
      enrichPageView(store, hit({ durationSeconds, traffic: { deviceType, userType } })).adsImpressions;
    expect(ads(0, 'desktop')).toBe(1);
    expect(ads(95, 'desktop')).toBe(4);
    expect(ads(95, 'desktop')).toBeGreaterThan(ads(20, 'desktop'));
    expect(ads(3600, 'desktop')).toBeGreaterThan(ads(3600, 'mobile'));
    expect(ads(3600, 'mobile')).toBe(ads(600, 'mobile'));
    expect(ads(600, 'desktop', 'subscriber')).toBe(0);
  });

  it('earns revenue per impression at the device CPM, more on business news than on sports', () => {
    const revenue = (article: number, deviceType: string, durationSeconds = 200) =>
      enrichPageView(store, hit({ article, durationSeconds, traffic: { deviceType, userType: 'returning' } }));
    const desktop = revenue(economy, 'desktop');
    const perImpression = desktop.revenueMicros / desktop.adsImpressions;
    expect(perImpression).toBeGreaterThan(CPM_MICROS.desktop / 1000);
    expect(revenue(sports, 'desktop').revenueMicros / desktop.adsImpressions).toBeLessThan(CPM_MICROS.desktop / 1000);
    const mobile = revenue(economy, 'mobile');
    expect(mobile.revenueMicros / mobile.adsImpressions).toBeLessThan(perImpression);
    const short = revenue(economy, 'desktop', 35);
    expect(short.adsImpressions).toBe(2);
    expect(short.revenueMicros).toBe(Math.round(2 * perImpression));
    expect(revenue(economy, 'desktop', 600).revenueMicros).toBeGreaterThan(short.revenueMicros);
  });

  it('follows the reader history for user type and RFV', () => {
    const history = new EmulatorStore();
    generateDemoData(history, { seed: 12, scale: 0.001, now: NOW });
    const clientId = 'history-reader';
    const first = enrichPageView(history, { article: 0, clientId, time: NOW - 40 * DAY_MS, durationSeconds: 300 });
    expect(first.traffic.userType).toBe('new');
    expect(first.rfv).toBe(0);
    history.addPageViews([first]);

    // Only earlier views in the 30 days before count.
    const tooLate = enrichPageView(history, { article: 0, clientId, time: NOW - 40 * DAY_MS + RFV_WINDOW_MS + 1000 });
    expect(tooLate.traffic.userType).toBe('returning');
    expect(tooLate.rfv).toBe(0);
    const before = enrichPageView(history, { article: 0, clientId, time: NOW - 41 * DAY_MS });
    expect(before.traffic.userType).toBe('new');
    expect(before.rfv).toBe(0);

    const nextDay = enrichPageView(history, { article: 0, clientId, time: NOW - 39 * DAY_MS });
    const weeksLater = enrichPageView(history, { article: 0, clientId, time: NOW - 20 * DAY_MS });
    expect(nextDay.rfv).toBeGreaterThan(weeksLater.rfv);
    expect(weeksLater.rfv).toBeGreaterThan(0);

    history.addPageViews([nextDay]);
    const afterTwo = enrichPageView(history, { article: 0, clientId, time: NOW - 39 * DAY_MS + 1000 });
    expect(afterTwo.rfv).toBeGreaterThan(nextDay.rfv);
    expect(afterTwo.rfv).toBeLessThanOrEqual(10);
  });

  it('keeps a subscriber a subscriber, ad-free', () => {
    const clientId = 'subscriber-reader';
    store.addPageViews([enrichPageView(store, hit({ clientId, time: NOW - DAY_MS, traffic: { userType: 'subscriber' } }))]);
    const next = enrichPageView(store, hit({ clientId, durationSeconds: 120 }));
    expect(next.traffic.userType).toBe('subscriber');
    expect(next.adsImpressions).toBe(0);
    expect(next.revenueMicros).toBe(0);
  });

  it('leaves the store unchanged', () => {
    const before = { version: store.version, views: store.views.length, clients: store.clients.size };
    enrichPageView(store, hit({ clientId: 'look-only' }));
    expect({ version: store.version, views: store.views.length, clients: store.clients.size }).toEqual(before);
  });

  it('rejects bad input with a message naming the field', () => {
    const bad: [Partial<PageViewInput>, RegExp][] = [
      [{ article: store.articles.length }, /article must be an index/],
      [{ article: -1 }, /article must be an index/],
      [{ clientId: '' }, /clientId/],
      [{ time: Number.NaN }, /time/],
      [{ durationSeconds: -1 }, /durationSeconds/],
      [{ durationSeconds: 1.5 }, /durationSeconds/],
      [{ scroll: 101 }, /scroll/],
      [{ traffic: { deviceType: 'watch' } }, /deviceType must be one of/],
      [{ traffic: { userType: 'vip' } }, /userType must be one of/],
      [{ traffic: { source: '' } }, /traffic.source/],
    ];
    for (const [overrides, message] of bad) expect(() => enrichPageView(store, hit(overrides))).toThrow(message);
    const unknownDimension = { ...hit(), traffic: JSON.parse('{"browser":"firefox"}') as PageViewInput['traffic'] };
    expect(() => enrichPageView(store, unknownDimension)).toThrow(/traffic.browser is not a traffic dimension/);
  });
});

describe('newExperienceId', () => {
  it('is IL_ and 22 url-safe characters from 16 random bytes', () => {
    const ids = new Set(Array.from({ length: 50 }, () => newExperienceId(randomBytes)));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^IL_[A-Za-z0-9_-]{22}$/);
    const fixed = new Uint8Array(16).fill(0xfb);
    expect(newExperienceId(() => fixed)).toBe(newExperienceId(() => fixed));
    expect(newExperienceId(() => fixed)).toMatch(/^IL_[-_]/);
  });

  it('refuses too few random bytes', () => {
    expect(() => newExperienceId(() => new Uint8Array(8))).toThrow(/16 random bytes/);
  });
});
