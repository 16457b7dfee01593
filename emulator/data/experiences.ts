import type { Experience } from '../store';
import type { Random } from './random';

const ID_BYTES = 16;

/**
 * A recommender experience id: `IL_` + 22 url-safe characters (16 random
 * bytes, base64url without padding). `randomBytes` is crypto.randomBytes for
 * experiences created over HTTP and a seeded stream for the demo ones.
 */
export function newExperienceId(randomBytes: (n: number) => Uint8Array): string {
  const bytes = randomBytes(ID_BYTES);
  if (!(bytes instanceof Uint8Array) || bytes.length < ID_BYTES) {
    throw new RangeError(`newExperienceId needs ${ID_BYTES} random bytes, got ${bytes?.length ?? 'none'}`);
  }
  return `IL_${Buffer.from(bytes.buffer, bytes.byteOffset, ID_BYTES).toString('base64url')}`;
}

/**
 * The demo experiences: every ranking profile on the first site, plus a few on
 * the others that exercise section include/exclude filters.
 */
const SEEDED_EXPERIENCES: readonly Omit<Experience, 'id'>[] = [
  { name: 'Most read', domain: 'dailyglobe.example', rankingProfile: 'mostRead', size: 6, timeWindowDays: 7, sections: {} },
  { name: 'Latest news', domain: 'dailyglobe.example', rankingProfile: 'latest', size: 8, timeWindowDays: 7, sections: {} },
  { name: 'Popular this week', domain: 'dailyglobe.example', rankingProfile: 'popular', size: 6, timeWindowDays: 7, sections: {} },
  { name: 'Trending now', domain: 'dailyglobe.example', rankingProfile: 'trendy', size: 6, timeWindowDays: 2, sections: {} },
  { name: 'Related articles', domain: 'dailyglobe.example', rankingProfile: 'similar', size: 6, timeWindowDays: 7, sections: {} },
  { name: 'For you', domain: 'dailyglobe.example', rankingProfile: 'personalized', size: 10, timeWindowDays: 7, sections: {} },
  { name: 'Recommended', domain: 'dailyglobe.example', rankingProfile: 'balanced', size: 8, timeWindowDays: 7, sections: {} },
  {
    name: 'Latest in politics and economy',
    domain: 'metrotimes.example',
    rankingProfile: 'latest',
    size: 6,
    timeWindowDays: 7,
    sections: { include: ['Politics', 'Economy'] },
  },
  {
    name: 'Most read outside culture',
    domain: 'metrotimes.example',
    rankingProfile: 'mostRead',
    size: 8,
    timeWindowDays: 7,
    sections: { exclude: ['Culture'] },
  },
  { name: 'More like this', domain: 'sportsdesk.example', rankingProfile: 'similar', size: 6, timeWindowDays: 7, sections: {} },
  { name: 'Your sports mix', domain: 'sportsdesk.example', rankingProfile: 'balanced', size: 10, timeWindowDays: 7, sections: {} },
];

/** Stores the demo experiences with ids drawn from the seeded stream. */
export function seedExperiences(experiences: Map<string, Experience>, random: Random): void {
  for (const template of SEEDED_EXPERIENCES) {
    const id = newExperienceId((n) => random.bytes(n));
    experiences.set(id, { id, ...template, sections: copySections(template.sections) });
  }
}

/** A copy, so that a PATCH of a stored experience cannot change the template. */
function copySections(sections: Experience['sections']): Experience['sections'] {
  return {
    ...(sections.include ? { include: [...sections.include] } : {}),
    ...(sections.exclude ? { exclude: [...sections.exclude] } : {}),
  };
}
