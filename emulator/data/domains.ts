import { SECTIONS, type Section } from './vocabulary';

export interface DemoDomain {
  domain: string;
  name: string;
  /** Share of all articles published by this site. */
  articleShare: number;
  /** Share of readers whose home site this is. */
  readerShare: number;
  /** The site's sections and their weights (articles and reader interest). */
  sections: Readonly<Partial<Record<Section, number>>>;
}

/** The demo news sites. Every section appears on at least one of them. */
export const DEMO_DOMAINS: readonly DemoDomain[] = [
  {
    domain: 'dailyglobe.example',
    name: 'The Daily Globe',
    articleShare: 0.45,
    readerShare: 0.5,
    sections: {
      Politics: 0.18,
      World: 0.16,
      Economy: 0.14,
      Sports: 0.12,
      Technology: 0.1,
      Health: 0.1,
      Culture: 0.1,
      Science: 0.1,
    },
  },
  {
    domain: 'metrotimes.example',
    name: 'Metro Times',
    articleShare: 0.35,
    readerShare: 0.32,
    sections: {
      Politics: 0.22,
      Culture: 0.2,
      Economy: 0.18,
      Health: 0.12,
      Technology: 0.1,
      Sports: 0.1,
      World: 0.08,
    },
  },
  {
    domain: 'sportsdesk.example',
    name: 'Sports Desk',
    articleShare: 0.2,
    readerShare: 0.18,
    sections: { Sports: 0.75, Health: 0.15, Technology: 0.1 },
  },
];

/** The (site, section) pairs articles are filed under, in a fixed order. */
export interface Bucket {
  domainIndex: number;
  section: Section;
  /** The section's weight within its site. */
  weight: number;
}

export function demoBuckets(): Bucket[] {
  return DEMO_DOMAINS.flatMap((site, domainIndex) =>
    SECTIONS.flatMap((section) => {
      const weight = site.sections[section];
      return weight === undefined ? [] : [{ domainIndex, section, weight }];
    }),
  );
}
