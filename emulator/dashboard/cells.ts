import type { Dimension, EmulatorStore } from '../store';
import type { ArticleIndex } from './articleIndex';
import { MULTI_VALUED_DIMENSIONS, isTrafficDimension } from './types';

/*
 * The scan does not group by strings. Each page view (or new article) gets an
 * integer code from the ids of its groupBy values, mixed-radix: its article's
 * part, precomputed per article, plus one term per traffic dimension. Equal
 * codes form a *cell*. A cell is a group, except that when grouping by the
 * multi-valued `section`/`author` the article itself is part of the code and
 * the cell is later spread over each of its article's sections/authors
 * (groups.ts). All rows of a cell belong to the same set of groups.
 */

export interface CellCoder {
  /** Each article's part of the code. */
  articleCode: Float64Array;
  /** One term per grouped traffic dimension: code += column[row] × multiplier. */
  traffic: { column: Uint32Array; multiplier: number }[];
  /** Number of distinct codes. */
  size: number;
}

export function buildCellCoder(store: EmulatorStore, articles: ArticleIndex, groupBy: readonly Dimension[]): CellCoder {
  const articleCode = new Float64Array(articles.count);
  let size = 1;
  // Grouping by url, section or author needs the article itself; title and domain only their ids.
  if (groupBy.some((d) => d === 'url' || MULTI_VALUED_DIMENSIONS.includes(d))) {
    for (let a = 0; a < articles.count; a++) articleCode[a] = a;
    size = Math.max(1, articles.count);
  } else {
    for (const [dimension, ids, radix] of [
      ['title', articles.titleId, articles.titles.size],
      ['domain', articles.domainId, articles.domains.size],
    ] as const) {
      if (!groupBy.includes(dimension)) continue;
      for (let a = 0; a < articles.count; a++) articleCode[a] += ids[a] * size;
      size *= Math.max(1, radix);
    }
  }
  const traffic: CellCoder['traffic'] = [];
  for (const dimension of groupBy) {
    if (!isTrafficDimension(dimension)) continue;
    const { column, dictionary } = store.views.traffic[dimension];
    traffic.push({ column: column.data, multiplier: size });
    size *= Math.max(1, dictionary.size);
  }
  if (!Number.isSafeInteger(size)) {
    throw new RangeError(`groupBy ${groupBy.join(', ')} has too many combinations (${size}) to encode`);
  }
  return { articleCode, traffic, size };
}

/** Code spaces up to this size use a direct lookup table (1 MiB) instead of a Map. */
const DENSE_LIMIT = 1 << 18;

/** Cells by code, each remembering an article and a row (−1 for a new article) to read its values from. */
export class CellTable {
  count = 0;
  readonly article: number[] = [];
  readonly row: number[] = [];
  private readonly dense: Int32Array | null;
  private readonly sparse = new Map<number, number>();

  constructor(size: number) {
    this.dense = size <= DENSE_LIMIT ? new Int32Array(size) : null;
  }

  /** The cell of `code`, created from this article and row when new. */
  cellOf(code: number, article: number, row: number): number {
    let cell: number | undefined;
    if (this.dense !== null) {
      cell = this.dense[code] - 1;
      if (cell >= 0) return cell;
    } else {
      cell = this.sparse.get(code);
      if (cell !== undefined) return cell;
    }
    cell = this.count++;
    if (this.dense !== null) this.dense[code] = cell + 1;
    else this.sparse.set(code, cell);
    this.article.push(article);
    this.row.push(row);
    return cell;
  }
}
