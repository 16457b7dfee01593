import { renderRecommendations, type RenderResponse } from '../../emulator/recommender';
import { selectTop } from '../../emulator/recommender/topK';
import type { Outcome } from '../../emulator/outcome';
import {
  EmulatorStore,
  TRAFFIC_DIMENSIONS,
  type Article,
  type Experience,
  type PageViewRow,
  type RankingProfile,
  type TrafficDimension,
} from '../../emulator/store';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const SITE = 'news.example';

// ---------- fixtures -------------------------------------------------------

function article(slug: string, overrides: Partial<Article> = {}): Article {
  return {
    url: `https://${SITE}/${slug}`,
    domain: SITE,
    title: slug,
    img: `https://img.${SITE}/${slug}.jpg`,
    authors: ['Staff Writer'],
    sections: ['general'],
    publishTime: NOW - 20 * DAY,
    ...overrides,
  };
}

function url(slug: string): string {
  return `https://${SITE}/${slug}`;
}

const TRAFFIC = Object.fromEntries(TRAFFIC_DIMENSIONS.map((d) => [d, 'none'])) as Record<TrafficDimension, string>;

/** A fixture store that lets tests add views by slug. */
class Fixture {
  readonly store = new EmulatorStore();

  constructor(articles: Article[]) {
    this.store.upsertArticles(articles);
  }

  /** `count` views of `slug`, by `clientIds` in turn, spread over the hour before `at`. */
  views(slug: string, count: number, at: number, clientIds: string[] = ['c-anon']): this {
    const index = this.store.articleIndex(url(slug));
    if (index === undefined) throw new Error(`fixture has no article ${slug}`);
    const rows: PageViewRow[] = [];
    for (let i = 0; i < count; i++) {
      rows.push({
        article: index,
        clientId: clientIds[i % clientIds.length],
        time: at - (i % 60) * 60_000,
        durationSeconds: 30,
        scroll: 50,
        adsImpressions: 1,
        revenueMicros: 1000,
        rfv: 1,
        traffic: TRAFFIC,
      });
    }
    this.store.addPageViews(rows);
    return this;
  }

  experience(rankingProfile: RankingProfile, overrides: Partial<Experience> = {}): string {
    const id = `IL_${rankingProfile}${this.store.experiences.size}`.padEnd(25, 'x');
    this.store.experiences.set(id, {
      id,
      name: `${rankingProfile} test`,
      domain: SITE,
      rankingProfile,
      size: 10,
      timeWindowDays: 7,
      sections: {},
      ...overrides,
    });
    return id;
  }

  render(params: Record<string, string>, now = NOW): Outcome<RenderResponse> {
    return renderRecommendations(this.store, new URLSearchParams(params), now);
  }

  /** The recommended urls as slugs; fails the test on an error outcome. */
  slugs(params: Record<string, string>, now = NOW): string[] {
    const outcome = this.render(params, now);
    if (!outcome.ok) throw new Error(`expected 200, got ${outcome.status} ${JSON.stringify(outcome.body)}`);
    return outcome.value.recommendation.map((item) => item.url.slice(`https://${SITE}/`.length));
  }
}

function errorPaths(outcome: Outcome<unknown>): string[] {
  if (outcome.ok) throw new Error('expected an error outcome');
  return (outcome.body.errors ?? []).map((e) => e.path);
}

// ---------- parameters -----------------------------------------------------

describe('render.json parameters', () => {
  const fixture = new Fixture([article('a')]);
  const id = fixture.experience('popular');

  it('requires id', () => {
    const outcome = fixture.render({ domain: SITE });
    expect(outcome).toMatchObject({ ok: false, status: 400, body: { msg: 'Invalid params' } });
    expect(errorPaths(outcome)).toEqual(['id']);
  });

  it('requires domain when canonical_url is absent, reporting every problem at once', () => {
    expect(errorPaths(fixture.render({}))).toEqual(['id', 'domain']);
  });

  it('treats empty values as absent', () => {
    expect(errorPaths(fixture.render({ id: '', domain: '', canonical_url: '', client_id: '' }))).toEqual(['id', 'domain']);
  });

  it.each(['not a url', '/relative/path', 'ftp://news.example/a', 'mailto:someone@news.example'])(
    'rejects canonical_url %s',
    (canonical) => {
      const outcome = fixture.render({ id, canonical_url: canonical });
      expect(errorPaths(outcome)).toEqual(['canonical_url']);
      expect(outcome).toMatchObject({
        body: { errors: [{ message: expect.stringContaining('absolute http(s) URL') }] },
      });
    },
  );

  it('accepts canonical_url without domain, and domain without canonical_url', () => {
    expect(fixture.render({ id, canonical_url: url('a') }).ok).toBe(true);
    expect(fixture.render({ id, domain: SITE }).ok).toBe(true);
  });

  it('does not treat domain as a filter: the experience decides', () => {
    expect(fixture.slugs({ id, domain: 'other.example' })).toEqual(['a']);
  });

  it('answers 404 for an unknown experience, but only once the params are valid', () => {
    expect(fixture.render({ id: 'IL_doesNotExist', domain: SITE })).toEqual({
      ok: false,
      status: 404,
      body: { msg: 'Experience not found' },
    });
    expect(fixture.render({ id: 'IL_doesNotExist' })).toMatchObject({ status: 400 });
  });

  it('does not treat an unknown canonical_url or client_id as an error', () => {
    expect(fixture.slugs({ id, canonical_url: 'https://elsewhere.example/x', client_id: 'never-seen' })).toEqual(['a']);
  });
});

// ---------- response shape -------------------------------------------------

describe('render.json response', () => {
  it('has exactly the contract fields, with publishTime as yyyy-MM-dd HH:mm:ss UTC on a 24-hour clock', () => {
    const fixture = new Fixture([
      article('morning', {
        title: 'Morning news',
        authors: ['Ana Li', 'Bo Chen'],
        sections: ['world', 'politics'],
        publishTime: Date.UTC(2026, 10, 20, 8, 15, 0),
      }),
      article('afternoon', { publishTime: Date.UTC(2026, 0, 2, 15, 4, 5, 999) }),
    ]);
    const outcome = fixture.render({ id: fixture.experience('latest'), domain: SITE });

    expect(outcome).toEqual({
      ok: true,
      value: {
        type: 'RecommenderExperienceResponse',
        recommendation: [
          {
            url: url('morning'),
            title: 'Morning news',
            img: `https://img.${SITE}/morning.jpg`,
            authors: ['Ana Li', 'Bo Chen'],
            sections: ['world', 'politics'],
            publishTime: '2026-11-20 08:15:00',
          },
          {
            url: url('afternoon'),
            title: 'afternoon',
            img: `https://img.${SITE}/afternoon.jpg`,
            authors: ['Staff Writer'],
            sections: ['general'],
            publishTime: '2026-01-02 15:04:05',
          },
        ],
      },
    });
  });

  it('hands out copies, so mutating a response cannot change the store', () => {
    const fixture = new Fixture([article('a', { sections: ['world'] })]);
    const id = fixture.experience('latest');
    const first = fixture.render({ id, domain: SITE });
    if (!first.ok) throw new Error('expected 200');
    first.value.recommendation[0].sections.push('tampered');
    expect(fixture.store.articles[0].sections).toEqual(['world']);
  });
});

// ---------- ranking profiles -----------------------------------------------

describe('ranking profiles', () => {
  it('popular: page views in the window, views before the window do not count', () => {
    const fixture = new Fixture([article('old-hit'), article('steady'), article('small')])
      .views('old-hit', 50, NOW - 10 * DAY)
      .views('steady', 5, NOW - 2 * DAY)
      .views('small', 3, NOW - 6 * DAY);
    const id = fixture.experience('popular', { timeWindowDays: 7 });
    expect(fixture.slugs({ id, domain: SITE })).toEqual(['steady', 'small', 'old-hit']);

    // A 14-day window reaches back to old-hit's views.
    const wide = fixture.experience('popular', { timeWindowDays: 14 });
    expect(fixture.slugs({ id: wide, domain: SITE })).toEqual(['old-hit', 'steady', 'small']);
  });

  it('mostRead: distinct readers, not views', () => {
    const fixture = new Fixture([article('one-fan'), article('three-readers')])
      .views('one-fan', 6, NOW - DAY, ['fan'])
      .views('three-readers', 3, NOW - DAY, ['r1', 'r2', 'r3']);
    expect(fixture.slugs({ id: fixture.experience('mostRead'), domain: SITE })).toEqual(['three-readers', 'one-fan']);
    expect(fixture.slugs({ id: fixture.experience('popular'), domain: SITE })).toEqual(['one-fan', 'three-readers']);
  });

  it('mostRead: with a clock before some views, only readers inside the window count', () => {
    // At NOW - 3 days, "late" has one reader so far (its later readers have not come yet), "early" two.
    const fixture = new Fixture([article('early'), article('late')])
      .views('early', 2, NOW - 4 * DAY, ['e1', 'e2'])
      .views('late', 1, NOW - 4 * DAY, ['l1'])
      .views('late', 4, NOW - DAY, ['l2', 'l3', 'l4', 'l5']);
    const id = fixture.experience('mostRead');
    expect(fixture.slugs({ id, domain: SITE }, NOW - 3 * DAY)).toEqual(['early', 'late']);
    expect(fixture.slugs({ id, domain: SITE }, NOW)).toEqual(['late', 'early']);
  });

  it('latest: newest first, articles published after now are not recommended', () => {
    const fixture = new Fixture([
      article('yesterday', { publishTime: NOW - DAY }),
      article('last-week', { publishTime: NOW - 7 * DAY }),
      article('just-now', { publishTime: NOW }),
      article('embargoed', { publishTime: NOW + HOUR }),
    ]);
    const id = fixture.experience('latest');
    expect(fixture.slugs({ id, domain: SITE })).toEqual(['just-now', 'yesterday', 'last-week']);
    expect(fixture.slugs({ id, domain: SITE }, NOW + 2 * HOUR)).toEqual(['embargoed', 'just-now', 'yesterday', 'last-week']);
  });

  it('trendy: a recent spike beats a steadily more popular article', () => {
    // steady: 7 views on each of the last 7 days (49, 7 in the last 24 h):
    //   (7+1)/(49/7+1) · ln 8 ≈ 2.08.
    // spike: 6 views, all in the last 24 h: (6+1)/(6/7+1) · ln 7 ≈ 7.3.
    const fixture = new Fixture([article('steady'), article('spike'), article('quiet')]).views('spike', 6, NOW - HOUR);
    for (let day = 0; day < 7; day++) fixture.views('steady', 7, NOW - day * DAY - 2 * HOUR);
    fixture.views('quiet', 4, NOW - 3 * DAY);

    expect(fixture.slugs({ id: fixture.experience('trendy'), domain: SITE })).toEqual(['spike', 'steady', 'quiet']);
    expect(fixture.slugs({ id: fixture.experience('popular'), domain: SITE })).toEqual(['steady', 'spike', 'quiet']);
  });

  describe('similar', () => {
    const fixture = new Fixture([
      article('election-results', {
        title: 'Election results: parliament vote count',
        sections: ['Politics'],
        authors: ['Jane Doe'],
      }),
      article('parliament-vote-delayed', { title: 'Parliament vote delayed again', sections: ['politics'] }),
      article('cabinet-reshuffle', { title: 'Cabinet reshuffle announced', sections: ['politics'] }),
      article('jane-on-budget', { title: 'Budget questions remain', sections: ['economy'], authors: ['jane doe'] }),
      article('cup-final', { title: 'Cup final goes to penalties', sections: ['sports'] }),
    ])
      // The unrelated article is by far the most popular: similarity must still win.
      .views('cup-final', 40, NOW - DAY)
      .views('cabinet-reshuffle', 2, NOW - DAY);
    const id = fixture.experience('similar');

    it('ranks articles sharing title words, sections and authors above unrelated ones', () => {
      const ranked = fixture.slugs({ id, canonical_url: url('election-results') });
      // Shares two title words and the section > shares the section > shares the author > nothing.
      expect(ranked).toEqual(['parliament-vote-delayed', 'cabinet-reshuffle', 'jane-on-budget', 'cup-final']);
    });

    it('never recommends the canonical article itself, even with tracking parameters', () => {
      expect(fixture.slugs({ id, canonical_url: `${url('election-results')}?utm_source=x#top` })).not.toContain('election-results');
    });

    it('tokenizes the path of a canonical url the store does not know', () => {
      const ranked = fixture.slugs({ id, canonical_url: `https://${SITE}/politics/2026/11/parliament-vote-tonight` });
      // path words parliament + vote and the section politics; nothing else shared, so those two go by popularity.
      expect(ranked).toEqual(['parliament-vote-delayed', 'election-results', 'cabinet-reshuffle', 'cup-final', 'jane-on-budget']);
    });

    it('falls back to popular without a canonical_url', () => {
      expect(fixture.slugs({ id, domain: SITE }).slice(0, 2)).toEqual(['cup-final', 'cabinet-reshuffle']);
    });
  });

  describe('personalized', () => {
    const fixture = new Fixture([
      article('derby-report', { sections: ['Sports'], authors: ['Sam Kick'] }),
      article('transfer-news', { sections: ['sports'] }),
      article('ski-season', { sections: ['sports', 'travel'], authors: ['Sam Kick'] }),
      article('budget-vote', { sections: ['politics'] }),
      article('tax-reform', { sections: ['politics'] }),
    ])
      .views('budget-vote', 30, NOW - DAY, ['p1', 'p2', 'p3'])
      .views('tax-reform', 20, NOW - DAY, ['p1', 'p2'])
      .views('transfer-news', 5, NOW - DAY, ['p3'])
      .views('derby-report', 2, NOW - 2 * DAY, ['sports-fan'])
      .views('budget-vote', 1, NOW - 40 * DAY, ['sports-fan']);
    const id = fixture.experience('personalized');

    it('gives a sports reader sports first, ahead of more popular politics, and nothing already read', () => {
      // sports-fan: derby-report (Sports, Sam Kick) recently, budget-vote (politics) long ago.
      // ski-season shares the section and the author, transfer-news only the section.
      expect(fixture.slugs({ id, domain: SITE, client_id: 'sports-fan' })).toEqual(['ski-season', 'transfer-news', 'tax-reform']);
    });

    it('falls back to popular for an unknown or absent client', () => {
      const popular = ['budget-vote', 'tax-reform', 'transfer-news', 'derby-report', 'ski-season'];
      expect(fixture.slugs({ id, domain: SITE, client_id: 'stranger' })).toEqual(popular);
      expect(fixture.slugs({ id, domain: SITE })).toEqual(popular);
    });
  });

  describe('balanced', () => {
    // Window 7 days → recency half-life 3.5 days.
    const daysAgo = (days: number): number => NOW - days * DAY;
    // popular-old:  0.30·1 (views) + 0.20·0.5 (3.5 days old)          = 0.40
    // similar-old:  0.35·1 (only similar one) + 0.20·0.5              = 0.45 with a canonical url, 0.10 without
    // fresh:        0.20·1 (newest)                                     = 0.20
    // canonical:    0.20·0.5^(5/3.5) ≈ 0.074 (only a candidate without a canonical url)
    const fixture = new Fixture([
      article('canonical', { title: 'Volcano eruption', sections: ['science'], authors: ['Ann'], publishTime: daysAgo(5) }),
      article('popular-old', { title: 'Market rally', sections: ['business'], authors: ['Bo'], publishTime: daysAgo(3.5) }),
      article('similar-old', { title: 'Volcano ash', sections: ['science'], authors: ['Cy'], publishTime: daysAgo(3.5) }),
      article('fresh', { title: 'Weather today', sections: ['local'], authors: ['Di'], publishTime: daysAgo(0) }),
    ]).views('popular-old', 9, NOW - HOUR);
    const id = fixture.experience('balanced');

    it('blends similarity, popularity and recency', () => {
      expect(fixture.slugs({ id, canonical_url: url('canonical') })).toEqual(['similar-old', 'popular-old', 'fresh']);
    });

    it('without a canonical url, popularity and recency decide', () => {
      expect(fixture.slugs({ id, domain: SITE })).toEqual(['popular-old', 'fresh', 'similar-old', 'canonical']);
    });
  });
});

// ---------- candidate selection --------------------------------------------

describe('candidates', () => {
  it('excludes other domains, already-read articles and filtered sections; returns at most size', () => {
    const fixture = new Fixture([
      article('world-1', { sections: ['World'] }),
      article('world-2', { sections: ['world', 'opinion'] }),
      article('world-3', { sections: ['world'] }),
      article('sports-1', { sections: ['sports'] }),
      { ...article('elsewhere'), url: 'https://other.example/elsewhere', domain: 'other.example' },
    ])
      .views('world-1', 5, NOW - DAY, ['reader'])
      .views('world-2', 4, NOW - DAY)
      .views('world-3', 3, NOW - DAY)
      .views('sports-1', 9, NOW - DAY);

    const all = fixture.experience('popular');
    expect(fixture.slugs({ id: all, domain: SITE })).toEqual(['sports-1', 'world-1', 'world-2', 'world-3']);
    expect(fixture.slugs({ id: all, domain: SITE, client_id: 'reader' })).toEqual(['sports-1', 'world-2', 'world-3']);

    const worldNoOpinion = fixture.experience('popular', { sections: { include: ['WORLD'], exclude: ['Opinion'] } });
    expect(fixture.slugs({ id: worldNoOpinion, domain: SITE })).toEqual(['world-1', 'world-3']);

    const two = fixture.experience('popular', { size: 2 });
    expect(fixture.slugs({ id: two, domain: SITE })).toEqual(['sports-1', 'world-1']);

    const otherDomain = fixture.experience('popular', { domain: 'Other.Example' });
    expect(fixture.render({ id: otherDomain, domain: SITE })).toMatchObject({
      ok: true,
      value: { recommendation: [{ url: 'https://other.example/elsewhere' }] },
    });

    const nowhere = fixture.experience('popular', { domain: 'empty.example' });
    expect(fixture.slugs({ id: nowhere, domain: SITE })).toEqual([]);
  });

  it('breaks ties by url ascending, and answers the same request the same way', () => {
    const fixture = new Fixture(['c', 'a', 'd', 'b'].map((slug) => article(slug)));
    const id = fixture.experience('popular');
    expect(fixture.slugs({ id, domain: SITE })).toEqual(['a', 'b', 'c', 'd']);
    expect(fixture.render({ id, domain: SITE })).toEqual(fixture.render({ id, domain: SITE }));
  });
});

// ---------- caching --------------------------------------------------------

describe('derived indexes', () => {
  it('see ingested views and articles on the very next call', () => {
    const fixture = new Fixture([article('a'), article('b')]).views('a', 3, NOW - DAY);
    const popular = fixture.experience('popular');
    const latest = fixture.experience('latest');
    expect(fixture.slugs({ id: popular, domain: SITE })).toEqual(['a', 'b']);

    fixture.views('b', 4, NOW - HOUR);
    expect(fixture.slugs({ id: popular, domain: SITE })).toEqual(['b', 'a']);

    fixture.store.upsertArticles([article('c', { publishTime: NOW - HOUR })]);
    expect(fixture.slugs({ id: latest, domain: SITE })[0]).toBe('c');
  });

  it('follow the clock without a rebuild: views age out of the window', () => {
    const fixture = new Fixture([article('a'), article('b')]).views('a', 5, NOW - 6 * DAY).views('b', 2, NOW - DAY);
    const id = fixture.experience('popular', { timeWindowDays: 7 });
    expect(fixture.slugs({ id, domain: SITE })).toEqual(['a', 'b']);
    expect(fixture.slugs({ id, domain: SITE }, NOW + 2 * DAY)).toEqual(['b', 'a']);
  });
});

describe('selectTop', () => {
  it('returns the same as a full sort, for any k', () => {
    // A fixed pseudo-random sequence with many duplicates, so ties are exercised.
    const values = Array.from({ length: 200 }, (_, i) => (i * 7919) % 37);
    const compare = (a: number, b: number): number => values[b] - values[a] || a - b;
    const sorted = values.map((_, i) => i).sort(compare);
    for (const k of [0, 1, 5, 37, 199, 200, 500]) {
      expect(selectTop(values.length, k, compare)).toEqual(sorted.slice(0, k));
    }
  });
});
