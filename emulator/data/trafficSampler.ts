import type { TrafficDimension } from '../store';
import { Random, WeightedChoice } from './random';
import {
  DEVICE_TYPES,
  INTERNAL_CAMPAIGNS,
  SOURCES,
  USER_TYPES,
  defaultMediumFor,
  internalMediumFor,
  type DeviceType,
  type UserType,
} from './traffic';

type Weights<T extends string> = Readonly<Record<T, number>>;
type Source = (typeof SOURCES)[number];

/** Casual readers arrive from search and social; loyal ones come direct or from the newsletter. */
const CASUAL_SOURCES: Weights<Source> = {
  google: 0.36,
  facebook: 0.18,
  direct: 0.12,
  'news.google': 0.09,
  twitter: 0.06,
  bing: 0.05,
  newsletter: 0.04,
  reddit: 0.04,
  flipboard: 0.04,
  linkedin: 0.02,
};
const LOYAL_SOURCES: Weights<Source> = {
  direct: 0.38,
  google: 0.2,
  newsletter: 0.16,
  facebook: 0.1,
  twitter: 0.05,
  'news.google': 0.04,
  bing: 0.02,
  reddit: 0.02,
  flipboard: 0.02,
  linkedin: 0.01,
};
/** Share of paid (cpc) traffic among these sources. */
const PAID_SHARE: Readonly<Partial<Record<Source, number>>> = { google: 0.1, facebook: 0.08 };

const EMAIL_CAMPAIGNS = { 'daily-briefing': 0.6, 'weekend-digest': 0.25, 'breaking-alert': 0.15 };
const PAID_CAMPAIGNS = { 'subscribe-spring': 0.6, 'brand-awareness': 0.4 };

/** Where internal clicks come from; the remaining views land from outside. */
const INTERNAL_SOURCE_WEIGHTS = { home: 0.35, article: 0.25, recommender: 0.2, section: 0.15, search: 0.05 };
const LANDING_SHARE = { casual: 0.6, loyal: 0.35 };
const RECOMMENDER_BOXES = INTERNAL_CAMPAIGNS.filter((c) => c !== '(none)');

/** Draws a key of `weights` in proportion to its weight; `drawIndex` gives its position in `keys`. */
class Categorical<T extends string> {
  private readonly choice: WeightedChoice;

  constructor(
    readonly keys: readonly T[],
    weights: Weights<T>,
  ) {
    this.choice = new WeightedChoice(keys.map((k) => weights[k]));
  }

  drawIndex(random: Random): number {
    return this.choice.draw(random);
  }
}

const INTERNAL_SOURCE_KEYS = ['home', 'article', 'recommender', 'section', 'search'] as const;

/**
 * Draws the traffic dimensions of generated views with plausible shares.
 * There are only a few thousand distinct combinations, so each is built once
 * and shared by every row that draws it (rows are read, never mutated).
 */
export class TrafficSampler {
  private readonly casualSources = new Categorical(SOURCES, CASUAL_SOURCES);
  private readonly loyalSources = new Categorical(SOURCES, LOYAL_SOURCES);
  private readonly emailCampaigns = new Categorical(['daily-briefing', 'weekend-digest', 'breaking-alert'], EMAIL_CAMPAIGNS);
  private readonly paidCampaigns = new Categorical(['subscribe-spring', 'brand-awareness'], PAID_CAMPAIGNS);
  private readonly internalSources = new Categorical(INTERNAL_SOURCE_KEYS, INTERNAL_SOURCE_WEIGHTS);
  private readonly built = new Map<number, Readonly<Record<TrafficDimension, string>>>();

  draw(random: Random, loyal: boolean, deviceType: DeviceType, userType: UserType): Readonly<Record<TrafficDimension, string>> {
    const sourceIndex = (loyal ? this.loyalSources : this.casualSources).drawIndex(random);
    const paid = random.chance(PAID_SHARE[SOURCES[sourceIndex]] ?? 0) ? 1 : 0;
    const medium = paid ? 'cpc' : defaultMediumFor(SOURCES[sourceIndex]);
    const campaigns = medium === 'email' ? this.emailCampaigns : medium === 'cpc' ? this.paidCampaigns : undefined;
    const campaignIndex = campaigns === undefined ? 0 : 1 + campaigns.drawIndex(random);
    const landing = random.chance(loyal ? LANDING_SHARE.loyal : LANDING_SHARE.casual);
    const internalIndex = landing ? 0 : 1 + this.internalSources.drawIndex(random);
    const boxIndex = INTERNAL_SOURCE_KEYS[internalIndex - 1] === 'recommender' ? 1 + random.int(RECOMMENDER_BOXES.length) : 0;

    let code = sourceIndex;
    code = code * 2 + paid;
    code = code * 4 + campaignIndex;
    code = code * (INTERNAL_SOURCE_KEYS.length + 1) + internalIndex;
    code = code * (RECOMMENDER_BOXES.length + 1) + boxIndex;
    code = code * DEVICE_TYPES.length + DEVICE_TYPES.indexOf(deviceType);
    code = code * USER_TYPES.length + USER_TYPES.indexOf(userType);
    let traffic = this.built.get(code);
    if (traffic === undefined) {
      const sourceInternal = internalIndex === 0 ? 'none' : INTERNAL_SOURCE_KEYS[internalIndex - 1];
      traffic = Object.freeze({
        source: SOURCES[sourceIndex],
        sourceInternal,
        medium,
        mediumInternal: internalMediumFor(sourceInternal),
        campaign: campaigns === undefined ? '(none)' : campaigns.keys[campaignIndex - 1],
        campaignInternal: boxIndex === 0 ? '(none)' : RECOMMENDER_BOXES[boxIndex - 1],
        deviceType,
        userType,
      });
      this.built.set(code, traffic);
    }
    return traffic;
  }
}
