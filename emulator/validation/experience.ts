import { invalidParams, ok, type Outcome } from '../outcome';
import { RANKING_PROFILES, type Experience } from '../store';
import { FieldReader, isRecord } from './fields';

export type ExperienceFields = Omit<Experience, 'id'>;

const FIELDS = ['name', 'domain', 'rankingProfile', 'size', 'timeWindowDays', 'sections'] as const;
const DEFAULT_SIZE = 6;
const DEFAULT_TIME_WINDOW_DAYS = 7;
/** A bare host name: what render.json's `domain` parameter is compared with. */
const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** A `POST /api/experiences` body → the experience to store (without its id). */
export function parseNewExperience(body: unknown): Outcome<ExperienceFields> {
  if (!isRecord(body)) return invalidParams([{ path: 'body', message: 'must be a JSON object' }]);
  return validateExperience(body);
}

/**
 * A `PATCH` body applied to an experience. The fields given replace the
 * stored ones (`sections` as a whole); the merged result must be valid.
 */
export function patchExperience(existing: Experience, body: unknown): Outcome<Experience> {
  if (!isRecord(body)) return invalidParams([{ path: 'body', message: 'must be a JSON object' }]);
  const { id, ...stored } = existing;
  const merged = validateExperience({ ...stored, ...body });
  return merged.ok ? ok({ id, ...merged.value }) : merged;
}

function validateExperience(record: Record<string, unknown>): Outcome<ExperienceFields> {
  const fields = new FieldReader(record);
  fields.rejectUnknown(FIELDS);
  const name = fields.string('name', { required: true, nonEmpty: true, maxLength: 200 });
  const domain = fields.string('domain', { required: true, nonEmpty: true });
  if (domain !== undefined && !DOMAIN.test(domain)) {
    fields.fail('domain', 'must be a domain name such as news.example (no scheme, port or path)');
  }
  const rankingProfile = fields.oneOf('rankingProfile', RANKING_PROFILES, { required: true });
  const size = fields.integer('size', { min: 1, max: 50 }) ?? DEFAULT_SIZE;
  const timeWindowDays = fields.integer('timeWindowDays', { min: 1, max: 365 }) ?? DEFAULT_TIME_WINDOW_DAYS;
  const sections = validateSections(record.sections, fields);
  if (fields.errors.length > 0 || name === undefined || domain === undefined || rankingProfile === undefined) {
    return invalidParams(fields.errors);
  }
  return ok({ name, domain, rankingProfile, size, timeWindowDays, sections });
}

function validateSections(value: unknown, parent: FieldReader): Experience['sections'] {
  if (value === undefined) return {};
  if (!isRecord(value)) {
    parent.fail('sections', 'must be an object {include?: string[], exclude?: string[]}');
    return {};
  }
  const fields = new FieldReader(value, 'sections');
  fields.rejectUnknown(['include', 'exclude']);
  const include = fields.stringArray('include', { maxItems: 100 });
  const exclude = fields.stringArray('exclude', { maxItems: 100 });
  parent.errors.push(...fields.errors);
  const sections: Experience['sections'] = {};
  if (include !== undefined) sections.include = [...include];
  if (exclude !== undefined) sections.exclude = [...exclude];
  return sections;
}
