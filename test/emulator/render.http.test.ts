import type { RunningEmulator } from '../../emulator';
import { call, startTestEmulator, type ErrorBody } from '../support/emulator';

interface RenderBody {
  type: string;
  recommendation: { url: string; title: string; img: string; authors: string[]; sections: string[]; publishTime: string }[];
}

const WIRE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

describe('GET /recommenderexperience/render.json', () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    emulator = await startTestEmulator({ rates: { renderPerMinute: 1000 } });
  });
  afterAll(() => emulator.close());

  const render = (params: Record<string, string>) =>
    call<RenderBody & ErrorBody>(emulator, `/recommenderexperience/render.json?${new URLSearchParams(params)}`);

  it('answers recommendations for every seeded experience, no credential needed', async () => {
    for (const experience of emulator.demo.experiences) {
      const { status, body } = await render({ id: experience.id, domain: experience.domain });
      expect(status).toBe(200);
      expect(body.type).toBe('RecommenderExperienceResponse');
      expect(body.recommendation.length).toBeGreaterThan(0);
      expect(body.recommendation.length).toBeLessThanOrEqual(experience.size);
      for (const item of body.recommendation) {
        expect(item).toEqual({
          url: expect.stringMatching(/^https?:\/\//),
          title: expect.any(String),
          img: expect.any(String),
          authors: expect.any(Array),
          sections: expect.any(Array),
          publishTime: expect.stringMatching(WIRE_TIME),
        });
      }
    }
  });

  it('never recommends the canonical article itself', async () => {
    const similar = emulator.demo.experiences.find((e) => e.rankingProfile === 'similar')!;
    const first = await render({ id: similar.id, domain: similar.domain });
    const canonical = first.body.recommendation[0].url;
    const { status, body } = await render({ id: similar.id, canonical_url: canonical });
    expect(status).toBe(200);
    expect(body.recommendation.map((r) => r.url)).not.toContain(canonical);
  });

  it.each([
    ['id is missing', { domain: 'dailyglobe.example' }, 'id'],
    ['canonical_url and domain are both missing', { id: 'IL_aaaaaaaaaaaaaaaaaaaaaa' }, 'domain'],
    ['canonical_url is not an absolute http(s) URL', { id: 'IL_aaaaaaaaaaaaaaaaaaaaaa', canonical_url: 'ftp://x/y' }, 'canonical_url'],
  ])('answers 400 when %s', async (_name, params, path) => {
    const { status, body } = await render(params);
    expect(status).toBe(400);
    expect(body.msg).toBe('Invalid params');
    expect(body.errors!.map((e) => e.path)).toContain(path);
  });

  it('answers 404 for an unknown experience', async () => {
    const { status, body } = await render({ id: 'IL_doesnotexist000000000', domain: 'dailyglobe.example' });
    expect(status).toBe(404);
    expect(body).toEqual({ msg: 'Experience not found' });
  });
});

describe('render.json rate limit', () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    emulator = await startTestEmulator({ rates: { renderPerMinute: 3 } });
  });
  afterAll(() => emulator.close());

  it('answers 429 with Retry-After beyond the per-IP budget, refilled by moving the clock', async () => {
    const experience = emulator.demo.experiences[0];
    const path = `/recommenderexperience/render.json?${new URLSearchParams({ id: experience.id, domain: experience.domain })}`;
    for (let i = 0; i < 3; i++) expect((await call(emulator, path)).status).toBe(200);
    // Bad requests spend the budget too: it protects the host, not the engine.
    const limited = await call<ErrorBody>(emulator, '/recommenderexperience/render.json');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ msg: 'Too many requests' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    await call(emulator, '/__emulator/clock', { body: { advanceSeconds: 60 } });
    expect((await call(emulator, path)).status).toBe(200);
  });
});
