import type { RunningEmulator } from '../../emulator';
import { apiToken, call, dashboardQuery, startTestEmulator, type ErrorBody } from '../support/emulator';

interface IngestResult {
  accepted: number;
  rejected: { index: number; message: string }[];
}

interface MetricResult {
  metric: string;
  total: number;
}

const DOMAIN = 'dailyglobe.example';

function article(slug: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    url: `https://${DOMAIN}/astronomy/${slug}`,
    domain: DOMAIN,
    title: `Stargazing ${slug}`,
    img: `https://img.${DOMAIN}/${slug}.jpg`,
    authors: ['Zed Stargazer'],
    sections: ['Astronomy'],
    publishTime: '2020-01-01 00:00:00',
    ...overrides,
  };
}

describe('POST /metadata/posts', () => {
  let emulator: RunningEmulator;
  let token: string;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    token = await apiToken(emulator);
  });
  afterAll(() => emulator.close());

  const post = (body: unknown) => call<IngestResult & ErrorBody>(emulator, '/metadata/posts', { body, token });

  it('upserts valid rows and reports each invalid row by index, storing none of it', async () => {
    const before = emulator.store.articles.length;
    const { status, body } = await post([
      article('meteors', { publishTime: '2026-01-02T03:04:05Z' }),
      article('bad-url', { url: 'mailto:x@y.example' }),
      article('bad-time', { publishTime: '2026-02-30 10:00:00' }),
      article('extra', { colour: 'blue' }),
      'not an object',
      article('comets', { authors: 'Zed' }),
      article('eclipse'),
    ]);
    expect(status).toBe(200);
    expect(body.accepted).toBe(2);
    expect(body.rejected.map((r) => r.index)).toEqual([1, 2, 3, 4, 5]);
    expect(body.rejected[0].message).toContain('url');
    expect(body.rejected[1].message).toContain('publishTime');
    expect(body.rejected[2].message).toContain('colour');
    expect(body.rejected[4].message).toContain('authors');
    expect(emulator.store.articles.length).toBe(before + 2);
    expect(emulator.store.articleIndex(`https://${DOMAIN}/astronomy/bad-time`)).toBeUndefined();
    const stored = emulator.store.articles[emulator.store.articleIndex(`https://${DOMAIN}/astronomy/meteors`)!];
    expect(stored.publishTime).toBe(Date.UTC(2026, 0, 2, 3, 4, 5));
  });

  it('replaces an article with the same url', async () => {
    await post([article('update-me')]);
    const count = emulator.store.articles.length;
    const { body } = await post([article('update-me', { title: 'Renamed' })]);
    expect(body).toEqual({ accepted: 1, rejected: [] });
    expect(emulator.store.articles.length).toBe(count);
    expect(emulator.store.articles[emulator.store.articleIndex(`https://${DOMAIN}/astronomy/update-me`)!].title).toBe('Renamed');
  });

  it('answers 400 for a body that is not a JSON array', async () => {
    const { status, body } = await post(article('single'));
    expect(status).toBe(400);
    expect(body.errors).toEqual([{ path: 'body', message: expect.any(String) }]);
  });

  it('answers 413 for more than 10,000 rows', async () => {
    const { status, body } = await post(Array.from({ length: 10_001 }, (_, i) => article(`bulk-${i}`)));
    expect(status).toBe(413);
    expect(body.msg).toContain('10000');
  });

  it('requires the bearer token', async () => {
    const { status } = await call(emulator, '/metadata/posts', { body: [article('anon')] });
    expect(status).toBe(401);
  });
});

describe('POST /ingest/pageviews', () => {
  let emulator: RunningEmulator;
  let token: string;
  const url = `https://${DOMAIN}/astronomy/known`;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    token = await apiToken(emulator);
    await call(emulator, '/metadata/posts', { body: [article('known')], token });
  });
  afterAll(() => emulator.close());

  const ingest = (body: unknown) => call<IngestResult & ErrorBody>(emulator, '/ingest/pageviews', { body });

  it('stores valid rows without a credential and rejects each invalid one whole', async () => {
    const before = emulator.store.views.length;
    const now = emulator.clock.now();
    const { status, body } = await ingest([
      { url, clientId: 'reader-a' },
      { url: `https://${DOMAIN}/never-published`, clientId: 'reader-a' },
      { url, clientId: '' },
      { url, clientId: 'reader-a', timestamp: 'yesterday' },
      { url, clientId: 'reader-a', timestamp: now + 3_600_000 },
      { url, clientId: 'reader-a', scroll: 101, durationSeconds: 30 },
      { url, clientId: 'reader-a', deviceType: 'toaster' },
      { url, clientId: 'reader-b', timestamp: now - 60_000, durationSeconds: 42, scroll: 80, source: 'newsletter', deviceType: 'mobile' },
      { url, clientId: 'reader-c', timestamp: new Date(now - 120_000).toISOString(), campaign: 'spring' },
    ]);
    expect(status).toBe(200);
    expect(body.accepted).toBe(3);
    expect(body.rejected.map((r) => r.index)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(body.rejected[0].message).toContain('not a known article');
    expect(body.rejected[3].message).toContain('future');
    expect(body.rejected[4].message).toContain('scroll');
    expect(emulator.store.views.length).toBe(before + 3);

    // The row of reader-b is enriched like generated rows, with its given values kept.
    const views = emulator.store.views;
    const row = views.length - 2;
    expect(views.duration.data[row]).toBe(42);
    expect(views.scroll.data[row]).toBe(80);
    const source = views.traffic.source;
    expect(source.dictionary.values[source.column.data[row]]).toBe('newsletter');
  });

  it('answers 400 for a body that is not a JSON array', async () => {
    expect((await ingest({ url, clientId: 'x' })).status).toBe(400);
    expect((await ingest('not json')).status).toBe(400);
  });
});

describe('ingested data in the dashboard and the recommendations', () => {
  let emulator: RunningEmulator;
  let token: string;

  beforeAll(async () => {
    emulator = await startTestEmulator({ scale: 0.05 });
    token = await apiToken(emulator);
  });
  afterAll(() => emulator.close());

  const pageViews = async (filters: unknown[] = []) => {
    const body = dashboardQuery({ dates: { last: { number: 31, dimension: 'day' } }, filters });
    const response = await call<MetricResult[]>(emulator, '/api/dashboard/query', { body, token });
    expect(response.status).toBe(200);
    return response.body[0].total;
  };

  it('changes the dashboard totals and the personalized recommendations of that reader at once', async () => {
    const recent = new Date(emulator.clock.now() - 2 * 86_400_000).toISOString();
    const fresh = [article('p1', { publishTime: recent }), article('p2', { publishTime: recent }), article('p3', { publishTime: recent })];
    const [p1, p2, p3] = fresh.map((a) => a.url as string);
    expect((await call<IngestResult>(emulator, '/metadata/posts', { body: fresh, token })).body.accepted).toBe(3);

    const forYou = await call<{ id: string }>(emulator, '/api/experiences', {
      body: { name: 'For you (test)', domain: DOMAIN, rankingProfile: 'personalized', size: 3 },
      token,
    });
    const clientId = `fresh-reader-${Date.now()}`;
    const recommendations = async () => {
      const query = new URLSearchParams({ id: forYou.body.id, domain: DOMAIN, client_id: clientId });
      const response = await call<{ recommendation: { url: string }[] }>(emulator, `/recommenderexperience/render.json?${query}`);
      expect(response.status).toBe(200);
      return response.body.recommendation.map((r) => r.url);
    };

    const totalBefore = await pageViews();
    const before = await recommendations();
    expect(before).toHaveLength(3);
    expect(before).not.toContain(p2);
    expect(before).not.toContain(p3);

    const ingested = await call<IngestResult>(emulator, '/ingest/pageviews', {
      body: [
        { url: p1, clientId, durationSeconds: 120 },
        { url: p1, clientId, durationSeconds: 60 },
      ],
    });
    expect(ingested.body).toEqual({ accepted: 2, rejected: [] });

    expect(await pageViews()).toBe(totalBefore + 2);
    expect(await pageViews([{ filter: 'url', op: 'eq', value: [p1] }])).toBe(2);
    expect(await pageViews([{ filter: 'section', op: 'eq', value: ['Astronomy'] }])).toBe(2);

    // The reader now likes Astronomy and Zed Stargazer; what they read is never recommended.
    const after = await recommendations();
    expect(after.slice(0, 2).sort()).toEqual([p2, p3].sort());
    expect(after).not.toContain(p1);
  });
});
