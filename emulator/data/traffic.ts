import type { TrafficDimension } from '../store';

/**
 * The traffic values of the demo data. Generated rows only use these; ingested
 * rows may carry other source/medium/campaign strings, but `deviceType` and
 * `userType` must be one of these (they drive revenue and loyalty).
 */
export const DEVICE_TYPES = ['mobile', 'desktop', 'tablet'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

/** `new`: first view of a reader we have no history for; `subscriber`: paying, ad-free. */
export const USER_TYPES = ['new', 'returning', 'subscriber'] as const;
export type UserType = (typeof USER_TYPES)[number];

export const SOURCES = [
  'google',
  'direct',
  'facebook',
  'twitter',
  'newsletter',
  'news.google',
  'bing',
  'reddit',
  'flipboard',
  'linkedin',
] as const;

const MEDIA = ['organic', '(none)', 'social', 'email', 'referral', 'cpc'] as const;

const CAMPAIGNS = ['(none)', 'daily-briefing', 'weekend-digest', 'breaking-alert', 'subscribe-spring', 'brand-awareness'] as const;

/** Where on the site the reader clicked through from; `none` for landings from outside. */
const INTERNAL_SOURCES = ['none', 'home', 'section', 'article', 'recommender', 'search'] as const;
const INTERNAL_MEDIA = ['none', 'navigation', 'link', 'widget', 'search'] as const;
/** Which on-site module got the click; only recommender widgets carry one. */
export const INTERNAL_CAMPAIGNS = ['(none)', 'related-box', 'most-read-box', 'for-you-box'] as const;

export const TRAFFIC_VALUES: Readonly<Record<TrafficDimension, readonly string[]>> = {
  source: SOURCES,
  sourceInternal: INTERNAL_SOURCES,
  medium: MEDIA,
  mediumInternal: INTERNAL_MEDIA,
  campaign: CAMPAIGNS,
  campaignInternal: INTERNAL_CAMPAIGNS,
  deviceType: DEVICE_TYPES,
  userType: USER_TYPES,
};

/** Values for an ingested row that says nothing (a bare beacon hit); userType is derived from history instead. */
export const TRAFFIC_DEFAULTS: Readonly<Record<Exclude<TrafficDimension, 'userType' | 'medium'>, string>> = {
  source: 'direct',
  sourceInternal: 'none',
  mediumInternal: 'none',
  campaign: '(none)',
  campaignInternal: '(none)',
  deviceType: 'desktop',
};

// A Map, not an object literal: ingested sources are arbitrary strings ("constructor"...).
const MEDIUM_BY_SOURCE: ReadonlyMap<string, string> = new Map([
  ['google', 'organic'],
  ['bing', 'organic'],
  ['direct', '(none)'],
  ['facebook', 'social'],
  ['twitter', 'social'],
  ['reddit', 'social'],
  ['linkedin', 'social'],
  ['newsletter', 'email'],
  ['news.google', 'referral'],
  ['flipboard', 'referral'],
]);

/** The medium a source implies when none is given (paid `cpc` must be explicit). */
export function defaultMediumFor(source: string): string {
  return MEDIUM_BY_SOURCE.get(source) ?? 'referral';
}

/** The on-site medium a click from `sourceInternal` implies. */
export function internalMediumFor(sourceInternal: string): string {
  switch (sourceInternal) {
    case 'home':
    case 'section':
      return 'navigation';
    case 'article':
      return 'link';
    case 'recommender':
      return 'widget';
    case 'search':
      return 'search';
    default:
      return 'none';
  }
}

export function isDeviceType(value: string): value is DeviceType {
  return (DEVICE_TYPES as readonly string[]).includes(value);
}

export function isUserType(value: string): value is UserType {
  return (USER_TYPES as readonly string[]).includes(value);
}
