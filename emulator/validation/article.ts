import type { Article } from '../store';
import { FieldReader, isRecord, parseHttpUrl } from './fields';
import { rowFailure, type RowResult } from './ingestRow';
import { parseTimestamp } from './time';

const FIELDS = ['url', 'domain', 'title', 'img', 'authors', 'sections', 'publishTime'] as const;

/** One `POST /metadata/posts` row → the article to upsert. */
export function parseArticleRow(row: unknown): RowResult<Article> {
  if (!isRecord(row)) return { ok: false, message: 'row must be a JSON object' };
  const fields = new FieldReader(row);
  fields.rejectUnknown(FIELDS);
  const url = fields.string('url', { required: true });
  if (url !== undefined && parseHttpUrl(url) === null) fields.fail('url', 'must be an absolute http(s) URL');
  const domain = fields.string('domain', { required: true, nonEmpty: true, maxLength: 253 });
  const title = fields.string('title', { required: true, nonEmpty: true, maxLength: 1000 });
  const img = fields.string('img', { required: true, maxLength: 4000 });
  const authors = fields.stringArray('authors', { required: true, maxItems: 50 });
  const sections = fields.stringArray('sections', { required: true, maxItems: 50 });
  const publishText = fields.string('publishTime', { required: true });
  const publishTime = publishText === undefined ? undefined : parseTimestamp(publishText);
  if (publishText !== undefined && publishTime === null) {
    fields.fail('publishTime', "must be 'yyyy-MM-dd HH:mm:ss' (UTC) or an ISO-8601 date-time with a zone");
  }
  if (
    fields.errors.length > 0 ||
    url === undefined ||
    domain === undefined ||
    title === undefined ||
    img === undefined ||
    authors === undefined ||
    sections === undefined ||
    publishTime == null
  ) {
    return rowFailure(fields.errors);
  }
  return { ok: true, value: { url, domain, title, img, authors: [...authors], sections: [...sections], publishTime } };
}
