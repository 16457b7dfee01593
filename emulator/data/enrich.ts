import { TRAFFIC_DIMENSIONS, type EmulatorStore, type PageViewRow, type TrafficDimension } from '../store';
import { typicalScroll } from './engagement';
import { RFV_WINDOW_MS, rfvScore, type PriorActivity } from './loyalty';
import { adsImpressionsFor, revenueMicrosFor } from './monetization';
import { DEVICE_TYPES, TRAFFIC_DEFAULTS, USER_TYPES, defaultMediumFor, internalMediumFor, isDeviceType, isUserType } from './traffic';

/** A page view as a tracking beacon reports it; everything optional is derived. */
export interface PageViewInput {
  /** Index into store.articles. */
  article: number;
  clientId: string;
  /** Epoch milliseconds. */
  time: number;
  /** Default 0: the beacon did not measure a read. */
  durationSeconds?: number;
  /** Default: the typical scroll for the duration (0 for 0 s). */
  scroll?: number;
  traffic?: Partial<Record<TrafficDimension, string>>;
}

/**
 * Completes an ingested page view by the generator's rules, so ingested rows
 * look like generated ones: traffic defaults (a bare hit is direct/(none) on
 * desktop; the medium follows the source; the user type follows the reader's
 * history), ads and revenue (monetization.ts), RFV from the reader's stored
 * views in the 30 days before `time` (loyalty.ts).
 *
 * Throws a RangeError naming the field when the input is invalid; does not
 * modify the store.
 */
export function enrichPageView(store: EmulatorStore, input: PageViewInput): PageViewRow {
  validateInput(store, input);
  const given = input.traffic ?? {};
  const history = readerHistory(store, input.clientId, input.time);
  const source = given.source ?? TRAFFIC_DEFAULTS.source;
  const sourceInternal = given.sourceInternal ?? TRAFFIC_DEFAULTS.sourceInternal;
  const deviceType = given.deviceType ?? TRAFFIC_DEFAULTS.deviceType;
  const userType = given.userType ?? history.userType;
  if (!isDeviceType(deviceType)) throw new RangeError(`traffic.deviceType must be one of ${DEVICE_TYPES.join(', ')}`);

  const durationSeconds = input.durationSeconds ?? 0;
  const adsImpressions = adsImpressionsFor(durationSeconds, deviceType, userType);
  const traffic: Record<TrafficDimension, string> = {
    source,
    sourceInternal,
    medium: given.medium ?? defaultMediumFor(source),
    mediumInternal: given.mediumInternal ?? internalMediumFor(sourceInternal),
    campaign: given.campaign ?? TRAFFIC_DEFAULTS.campaign,
    campaignInternal: given.campaignInternal ?? TRAFFIC_DEFAULTS.campaignInternal,
    deviceType,
    userType,
  };
  return {
    article: input.article,
    clientId: input.clientId,
    time: input.time,
    durationSeconds,
    scroll: input.scroll ?? typicalScroll(durationSeconds),
    adsImpressions,
    revenueMicros: revenueMicrosFor(adsImpressions, deviceType, store.articles[input.article].sections),
    rfv: rfvScore(history.prior, input.time),
    traffic,
  };
}

function validateInput(store: EmulatorStore, input: PageViewInput): void {
  if (!(Number.isInteger(input.article) && input.article >= 0 && input.article < store.articles.length)) {
    throw new RangeError(`article must be an index below ${store.articles.length}, got ${input.article}`);
  }
  if (typeof input.clientId !== 'string' || input.clientId.length === 0) {
    throw new RangeError('clientId must be a non-empty string');
  }
  if (!Number.isFinite(input.time)) throw new RangeError(`time must be epoch milliseconds, got ${input.time}`);
  const { durationSeconds, scroll } = input;
  if (durationSeconds !== undefined && !(Number.isInteger(durationSeconds) && durationSeconds >= 0 && durationSeconds <= 2 ** 31 - 1)) {
    throw new RangeError(`durationSeconds must be an integer >= 0, got ${durationSeconds}`);
  }
  if (scroll !== undefined && !(Number.isInteger(scroll) && scroll >= 0 && scroll <= 100)) {
    throw new RangeError(`scroll must be an integer from 0 to 100, got ${scroll}`);
  }
  for (const [dimension, value] of Object.entries(input.traffic ?? {})) {
    if (!(TRAFFIC_DIMENSIONS as readonly string[]).includes(dimension)) {
      throw new RangeError(`traffic.${dimension} is not a traffic dimension (${TRAFFIC_DIMENSIONS.join(', ')})`);
    }
    if (value !== undefined && (typeof value !== 'string' || value.length === 0)) {
      throw new RangeError(`traffic.${dimension} must be a non-empty string`);
    }
  }
  const userType = input.traffic?.userType;
  if (userType !== undefined && !isUserType(userType)) {
    throw new RangeError(`traffic.userType must be one of ${USER_TYPES.join(', ')}`);
  }
}

/**
 * What the store knows of the reader before `time`: activity in the RFV window,
 * and the user type to assume: a subscriber stays one, anyone seen before is
 * returning, otherwise new.
 */
function readerHistory(store: EmulatorStore, clientId: string, time: number): { prior: PriorActivity; userType: string } {
  const prior: PriorActivity = { views: 0, durationSeconds: 0, lastViewTime: 0 };
  const client = store.clients.lookup(clientId);
  const rows = client === undefined ? undefined : store.clientRows[client];
  if (rows === undefined) return { prior, userType: 'new' };

  const views = store.views;
  const userTypes = views.traffic.userType;
  let latestEarlier = -1;
  for (const row of rows) {
    const t = views.time.data[row];
    if (t >= time) continue;
    if (latestEarlier < 0 || t >= views.time.data[latestEarlier]) latestEarlier = row;
    if (t >= time - RFV_WINDOW_MS) {
      prior.views++;
      prior.durationSeconds += views.duration.data[row];
      prior.lastViewTime = Math.max(prior.lastViewTime, t);
    }
  }
  if (latestEarlier < 0) return { prior, userType: 'new' };
  const latestType = userTypes.dictionary.values[userTypes.column.data[latestEarlier]];
  return { prior, userType: latestType === 'subscriber' ? 'subscriber' : 'returning' };
}
