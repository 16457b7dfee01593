import { DEVICE_TYPES, USER_TYPES, type PageViewInput } from '../data';
import type { EmulatorStore, TrafficDimension } from '../store';
import { FieldReader, isRecord } from './fields';
import { rowFailure, type RowResult } from './ingestRow';
import { parseTimestamp } from './time';

const TRAFFIC_FIELDS = ['source', 'medium', 'campaign', 'deviceType', 'userType'] as const;
const FIELDS = ['url', 'clientId', 'timestamp', 'durationSeconds', 'scroll', ...TRAFFIC_FIELDS] as const;
/** Beacons from clients whose clocks run a little ahead are still accepted. */
const FUTURE_TOLERANCE_MS = 60_000;
const MAX_DURATION_SECONDS = 24 * 60 * 60;

/** One `POST /ingest/pageviews` row → the page view to enrich, or why it is rejected. */
export function parsePageViewRow(row: unknown, store: EmulatorStore, now: number): RowResult<PageViewInput> {
  if (!isRecord(row)) return { ok: false, message: 'row must be a JSON object' };
  const fields = new FieldReader(row);
  fields.rejectUnknown(FIELDS);
  const url = fields.string('url', { required: true, nonEmpty: true });
  const article = url === undefined ? undefined : store.articleIndex(url);
  if (url !== undefined && article === undefined) {
    fields.fail('url', 'is not a known article (add it with POST /metadata/posts first)');
  }
  const clientId = fields.string('clientId', { required: true, nonEmpty: true, maxLength: 200 });
  const time = readTimestamp(fields, now);
  const durationSeconds = fields.integer('durationSeconds', { min: 0, max: MAX_DURATION_SECONDS });
  const scroll = fields.integer('scroll', { min: 0, max: 100 });
  const traffic: Partial<Record<TrafficDimension, string>> = {};
  for (const name of ['source', 'medium', 'campaign'] as const) {
    const value = fields.string(name, { nonEmpty: true, maxLength: 200 });
    if (value !== undefined) traffic[name] = value;
  }
  const deviceType = fields.oneOf('deviceType', DEVICE_TYPES);
  if (deviceType !== undefined) traffic.deviceType = deviceType;
  const userType = fields.oneOf('userType', USER_TYPES);
  if (userType !== undefined) traffic.userType = userType;
  if (fields.errors.length > 0 || article === undefined || clientId === undefined || time === undefined) {
    return rowFailure(fields.errors);
  }
  const view: PageViewInput = { article, clientId, time, traffic };
  if (durationSeconds !== undefined) view.durationSeconds = durationSeconds;
  if (scroll !== undefined) view.scroll = scroll;
  return { ok: true, value: view };
}

function readTimestamp(fields: FieldReader, now: number): number | undefined {
  const value = fields.raw('timestamp');
  if (value === undefined) return now;
  let time: number | null = null;
  if (typeof value === 'number') {
    time = Number.isSafeInteger(value) && value >= 0 ? value : null;
  } else if (typeof value === 'string') {
    time = parseTimestamp(value);
  }
  if (time === null) {
    return fields.fail('timestamp', 'must be an ISO-8601 date-time with a zone or epoch milliseconds');
  }
  if (time > now + FUTURE_TOLERANCE_MS) return fields.fail('timestamp', 'must not be in the future');
  return time;
}
