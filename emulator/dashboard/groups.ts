import type { Dimension, EmulatorStore } from '../store';
import { articleValues, type ArticleIndex } from './articleIndex';
import type { CellTable } from './cells';
import { groupKey } from './groupKey';
import { MULTI_VALUED_DIMENSIONS, type DashboardItem } from './types';

/**
 * Groups: distinct groupBy value tuples. A cell maps to one group, or, when
 * grouping by section/author, to one group per section/author (combination)
 * of its article: a page view of an article in two sections counts in both
 * section rows, so such rows need not add up to the total. An article with no
 * section (author) appears in no row when grouping by section (author).
 */
export interface Groups {
  count: number;
  /** Items and key of group g, built on first use: only the page and sorted ties need them. */
  itemsOf(group: number): DashboardItem[];
  keyOf(group: number): string;
  /** Groups of cell c: groupList[groupStart[c] .. groupStart[c + 1]). */
  groupStart: Int32Array;
  groupList: Int32Array;
}

export function foldCellsIntoGroups(store: EmulatorStore, articles: ArticleIndex, groupBy: readonly Dimension[], cells: CellTable): Groups {
  const choices = groupBy.map((d) => valueChoices(store, articles, d));
  const optionsOf = (cell: number) => choices.map((choose) => choose(cells.article[cell], cells.row[cell]));
  if (!groupBy.some((d) => MULTI_VALUED_DIMENSIONS.includes(d))) {
    // Cell codes are built from injective ids here, so every cell is a distinct group.
    const identity = Int32Array.from({ length: cells.count + 1 }, (_, i) => i);
    const valuesOf = (cell: number) => optionsOf(cell).map((options) => options[0]);
    return withLazyItems(groupBy, cells.count, valuesOf, identity, identity.subarray(0, cells.count));
  }

  const groupByTuple = new Map<string, number>();
  const groupValues: string[][] = [];
  const groupStart = new Int32Array(cells.count + 1);
  const list: number[] = [];
  for (let cell = 0; cell < cells.count; cell++) {
    groupStart[cell] = list.length;
    for (const values of combinations(optionsOf(cell))) {
      const tuple = values.join('\u0000');
      let group = groupByTuple.get(tuple);
      if (group === undefined) {
        group = groupValues.length;
        groupByTuple.set(tuple, group);
        groupValues.push(values);
      }
      list.push(group);
    }
  }
  groupStart[cells.count] = list.length;
  return withLazyItems(groupBy, groupValues.length, (g) => groupValues[g], groupStart, Int32Array.from(list));
}

function withLazyItems(
  groupBy: readonly Dimension[],
  count: number,
  valuesOf: (group: number) => string[],
  groupStart: Int32Array,
  groupList: Int32Array,
): Groups {
  const items: DashboardItem[][] = [];
  const keys: string[] = [];
  const itemsOf = (g: number) => (items[g] ??= valuesOf(g).map((value, k) => ({ id: value, value, type: groupBy[k] })));
  return { count, itemsOf, keyOf: (g) => (keys[g] ??= groupKey(itemsOf(g))), groupStart, groupList };
}

/** The values a cell takes for one dimension (several for section/author). */
function valueChoices(store: EmulatorStore, articles: ArticleIndex, dimension: Dimension): (article: number, row: number) => string[] {
  if (dimension === 'url') return (a) => [store.articles[a].url];
  if (dimension === 'title' || dimension === 'domain' || dimension === 'section' || dimension === 'author') {
    const { dictionary, idsOf } = articleValues(articles, dimension);
    return (a) => Array.from(idsOf(a), (id) => dictionary.values[id]);
  }
  const { column, dictionary } = store.views.traffic[dimension];
  // Cells with traffic dimensions always come from a page view: validation keeps newArticles away from them.
  return (_a, row) => [dictionary.values[column.data[row]]];
}

/** Every way to pick one value per dimension (a single one unless section/author has several). */
function combinations(options: string[][]): string[][] {
  let result: string[][] = [[]];
  for (const values of options) {
    if (values.length === 1) {
      for (const partial of result) partial.push(values[0]);
    } else {
      result = result.flatMap((partial) => values.map((value) => [...partial, value]));
    }
  }
  return result;
}
