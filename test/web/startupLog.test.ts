/**
 * `npm start` with no upstream: the start-up log names the embedded
 * emulator's seeded experiences (id, profile, domain), and the README's first
 * query, pasted as it stands, answers with recommendations.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { postGraphQL } from '../support/federationGateway';
import { listeningUrl, logLine, startSubgraphProcess, type SubgraphProcess } from '../support/subgraphProcess';

const README = path.resolve(__dirname, '..', '..', 'README.md');
const EMULATOR_LINE = 'no upstream configured (REPORTING_BASE_URL etc. unset): using the embedded emulator with demo data';
const RANKING_PROFILES = ['mostRead', 'latest', 'popular', 'trendy', 'similar', 'personalized', 'balanced'];

/** The first ```graphql block of the README: the query a newcomer pastes first. */
function readmeFirstQuery(): string {
  const block = /```graphql\n([\s\S]*?)```/.exec(readFileSync(README, 'utf8'));
  if (block === null) throw new Error('README.md has no ```graphql block');
  return block[1]!;
}

async function experiencesFromEmulator(emulatorUrl: string): Promise<{ id: string; rankingProfile: string; domain: string }[]> {
  const signIn = await fetch(new URL('/api/user/signin', emulatorUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'api@demo.example', password: 'demo-api-password' }),
  });
  const { token } = (await signIn.json()) as { token: string };
  const listed = await fetch(new URL('/api/experiences', emulatorUrl), { headers: { authorization: `Bearer ${token}` } });
  return (await listed.json()) as { id: string; rankingProfile: string; domain: string }[];
}

describe('the start-up log with the embedded emulator', () => {
  let running: SubgraphProcess | undefined;

  afterEach(async () => {
    await running?.kill();
    running = undefined;
  });

  it('lists every seeded experience, and the README first query works with the id it shows', async () => {
    // The default seed, as `npm start` runs: the README's id is the default seed's. A small scale: the default
    // one's demo data costs more CPU at start-up than everything else together (seconds on a busy machine),
    // and the experiences do not depend on the scale (test/emulator/seedGuarantee.test.ts).
    running = startSubgraphProcess({ env: { PORT: '0', EMULATOR_SCALE: '0.02' } });
    const line = await logLine(running, EMULATOR_LINE);
    const url = await listeningUrl(running);

    const listed = await experiencesFromEmulator(String(line.emulatorUrl));
    expect(line.experiences).toEqual(listed.map(({ id, rankingProfile, domain }) => ({ id, profile: rankingProfile, domain })));
    expect(new Set(listed.map((experience) => experience.rankingProfile))).toEqual(new Set(RANKING_PROFILES));

    const query = readmeFirstQuery();
    const [, experienceId] = /experienceId: "([^"]+)"/.exec(query) ?? [];
    expect(listed.map((experience) => experience.id)).toContain(experienceId);
    const answer = await postGraphQL<{ recommendations: { position: number; url: string; title: string }[] }>(url, query);
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.recommendations.length).toBeGreaterThan(0);
    expect(answer.data?.recommendations.every((item) => item.url.startsWith('https://dailyglobe.example/'))).toBe(true);
  });
});
