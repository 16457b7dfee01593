import type { EmulatorContext } from '../context';
import { enrichPageView } from '../data';
import type { EmulatorRequest } from '../http/request';
import { errorReply, failureReply, invalidParamsReply, json, type Reply } from '../http/reply';
import type { Router } from '../http/router';
import { parseArticleRow } from '../validation/article';
import { parsePageViewRow } from '../validation/pageView';
import type { RejectedRow, RowResult } from '../validation/ingestRow';
import { withApiUser } from './apiUser';

const INGEST_BODY_LIMIT_BYTES = 32 * 1024 * 1024;
const MAX_ROWS_PER_BATCH = 10_000;

/**
 * `POST /metadata/posts` and `POST /ingest/pageviews` (docs/upstream-contract.md §4). Every row
 * is validated before anything is stored, so a batch never half-applies a
 * row; valid rows are kept and invalid ones reported by index.
 */
export function addIngestRoutes(router: Router, context: EmulatorContext): void {
  router.add(
    'POST',
    '/metadata/posts',
    withApiUser(context, 'none', async (request) => {
      const rows = await readRows(request);
      if (!Array.isArray(rows)) return rows;
      const { accepted, rejected } = partition(rows.map((row) => parseArticleRow(row)));
      if (accepted.length > 0) context.store.upsertArticles(accepted);
      return json(200, { accepted: accepted.length, rejected });
    }),
  );

  // No credential, like a tracking beacon.
  router.add('POST', '/ingest/pageviews', async (request) => {
    const rows = await readRows(request);
    if (!Array.isArray(rows)) return rows;
    const now = context.clock.now();
    const { accepted, rejected } = partition(rows.map((row) => parsePageViewRow(row, context.store, now)));
    // One at a time: enrichment reads the reader's history, which includes
    // the earlier rows of the same batch.
    for (const view of accepted) context.store.addPageViews([enrichPageView(context.store, view)]);
    return json(200, { accepted: accepted.length, rejected });
  });
}

async function readRows(request: EmulatorRequest): Promise<unknown[] | Reply> {
  const body = await request.json(INGEST_BODY_LIMIT_BYTES);
  if (!body.ok) return failureReply(body);
  if (!Array.isArray(body.value)) {
    return invalidParamsReply([{ path: 'body', message: 'must be a JSON array of rows' }]);
  }
  if (body.value.length > MAX_ROWS_PER_BATCH) {
    return errorReply(413, `Too many rows: at most ${MAX_ROWS_PER_BATCH} per batch, got ${body.value.length}`);
  }
  return body.value;
}

function partition<T>(results: RowResult<T>[]): { accepted: T[]; rejected: RejectedRow[] } {
  const accepted: T[] = [];
  const rejected: RejectedRow[] = [];
  results.forEach((result, index) => {
    if (result.ok) accepted.push(result.value);
    else rejected.push({ index, message: result.message });
  });
  return { accepted, rejected };
}
