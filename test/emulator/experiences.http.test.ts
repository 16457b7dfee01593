import type { RunningEmulator } from '../../emulator';
import { RANKING_PROFILES } from '../../emulator/store';
import { apiToken, call, startTestEmulator, type ErrorBody } from '../support/emulator';

interface ExperienceBody {
  id: string;
  name: string;
  domain: string;
  rankingProfile: string;
  size: number;
  timeWindowDays: number;
  sections: { include?: string[]; exclude?: string[] };
}

const ID = /^IL_[A-Za-z0-9_-]{22}$/;

describe('/api/experiences', () => {
  let emulator: RunningEmulator;
  let token: string;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    token = await apiToken(emulator);
  });
  afterAll(() => emulator.close());

  const api = <T>(path: string, method = 'GET', body?: unknown) =>
    call<T & ErrorBody>(emulator, `/api/experiences${path}`, { method, body, token });

  it('lists the seeded experiences, at least one per ranking profile, with exactly the contract fields', async () => {
    const { status, body } = await api<ExperienceBody[]>('');
    expect(status).toBe(200);
    expect(new Set(body.map((e) => e.rankingProfile))).toEqual(new Set(RANKING_PROFILES));
    for (const experience of body) {
      expect(Object.keys(experience).sort()).toEqual(['domain', 'id', 'name', 'rankingProfile', 'sections', 'size', 'timeWindowDays']);
      expect(experience.id).toMatch(ID);
    }
    expect(body.map((e) => e.id)).toEqual(emulator.demo.experiences.map((e) => e.id));
  });

  it('creates an experience with defaults, serves it, and render.json uses it at once', async () => {
    const created = await api<ExperienceBody>('', 'POST', {
      name: 'Sports only',
      domain: 'dailyglobe.example',
      rankingProfile: 'latest',
      sections: { include: ['Sports'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(ID),
      name: 'Sports only',
      domain: 'dailyglobe.example',
      rankingProfile: 'latest',
      size: 6,
      timeWindowDays: 7,
      sections: { include: ['Sports'] },
    });
    expect((await api<ExperienceBody>(`/${created.body.id}`)).body).toEqual(created.body);
    expect((await api<ExperienceBody[]>('')).body).toContainEqual(created.body);

    const render = await call<{ recommendation: { sections: string[] }[] }>(
      emulator,
      `/recommenderexperience/render.json?${new URLSearchParams({ id: created.body.id, domain: 'dailyglobe.example' })}`,
    );
    expect(render.status).toBe(200);
    expect(render.body.recommendation.length).toBeGreaterThan(0);
    for (const item of render.body.recommendation) expect(item.sections).toContain('Sports');
  });

  it('gives every created experience a fresh id', async () => {
    const body = { name: 'Twin', domain: 'metrotimes.example', rankingProfile: 'popular' };
    const [a, b] = await Promise.all([api<ExperienceBody>('', 'POST', body), api<ExperienceBody>('', 'POST', body)]);
    expect(a.body.id).not.toBe(b.body.id);
  });

  it('answers 400 naming every bad field, unknown fields included', async () => {
    const { status, body } = await api('', 'POST', {
      domain: 'https://dailyglobe.example/',
      rankingProfile: 'random',
      size: 0,
      timeWindowDays: 1.5,
      sections: { include: 'Sports', only: [] },
      colour: 'blue',
    });
    expect(status).toBe(400);
    expect(body.msg).toBe('Invalid params');
    expect(body.errors!.map((e) => e.path).sort()).toEqual(
      ['colour', 'domain', 'name', 'rankingProfile', 'sections.include', 'sections.only', 'size', 'timeWindowDays'].sort(),
    );
  });

  it.each([
    ['size above 50', { size: 51 }],
    ['timeWindowDays above 365', { timeWindowDays: 366 }],
    ['an empty name', { name: ' ' }],
  ])('refuses %s', async (_name, override) => {
    const { status } = await api('', 'POST', { name: 'x', domain: 'dailyglobe.example', rankingProfile: 'latest', ...override });
    expect(status).toBe(400);
  });

  it('answers 400 for a body that is not an object', async () => {
    const { status, body } = await api('', 'POST', ['name']);
    expect(status).toBe(400);
    expect(body.errors).toEqual([{ path: 'body', message: expect.any(String) }]);
  });

  it('patches the given fields, validates the merged result and leaves the stored one alone on error', async () => {
    const created = await api<ExperienceBody>('', 'POST', {
      name: 'To patch',
      domain: 'dailyglobe.example',
      rankingProfile: 'popular',
      size: 4,
    });
    const id = created.body.id;

    const patched = await api<ExperienceBody>(`/${id}`, 'PATCH', { size: 9, sections: { exclude: ['Politics'] } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...created.body, size: 9, sections: { exclude: ['Politics'] } });

    const invalid = await api(`/${id}`, 'PATCH', { size: 51, rankingProfile: 'nope' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors!.map((e) => e.path).sort()).toEqual(['rankingProfile', 'size']);

    const idChange = await api(`/${id}`, 'PATCH', { id: 'IL_0000000000000000000000' });
    expect(idChange.status).toBe(400);
    expect(idChange.body.errors!.map((e) => e.path)).toEqual(['id']);

    expect((await api<ExperienceBody>(`/${id}`)).body).toEqual(patched.body);
  });

  it('deletes with 204, then answers 404 everywhere for it', async () => {
    const created = await api<ExperienceBody>('', 'POST', { name: 'Short-lived', domain: 'dailyglobe.example', rankingProfile: 'latest' });
    const id = created.body.id;
    const deleted = await api(`/${id}`, 'DELETE');
    expect(deleted.status).toBe(204);
    for (const [method, body] of [['GET'], ['PATCH', { size: 3 }], ['DELETE']] as const) {
      const response = await api(`/${id}`, method, body);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ msg: 'Experience not found' });
    }
    const render = await call(emulator, `/recommenderexperience/render.json?${new URLSearchParams({ id, domain: 'dailyglobe.example' })}`);
    expect(render.status).toBe(404);
  });

  it('requires the bearer token', async () => {
    const list = await call<ErrorBody>(emulator, '/api/experiences');
    expect(list.status).toBe(401);
    expect(list.body).toEqual({ msg: 'Unauthorized' });
    const create = await call(emulator, '/api/experiences', {
      body: { name: 'x', domain: 'dailyglobe.example', rankingProfile: 'latest' },
    });
    expect(create.status).toBe(401);
  });
});
