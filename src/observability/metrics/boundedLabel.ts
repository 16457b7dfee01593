/** What a label takes once its budget of distinct values is spent. */
export const OTHER_LABEL = '__other__';

/** GraphQL name syntax, capped in length: anything else is not a name a client chose honestly. */
const NAME_PATTERN = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;

/** A caller's id (an OAuth client id, a subject, a client name): letters, digits and `_ . : @ / -`, capped in length. */
export const CALLER_ID_PATTERN = /^[\w.:@/-]{1,128}$/;

/**
 * Keeps a client-chosen label (the operation name) from growing the metric
 * series without bound: the first `limit` distinct valid names are kept as
 * they are, later ones share OTHER_LABEL. Every Prometheus series costs
 * memory here and in the scraper for as long as the process lives, and a
 * client can invent names at will.
 */
export class BoundedLabel {
  private readonly seen = new Set<string>();

  /** `pattern`: what an honest value looks like (default: GraphQL name syntax). */
  constructor(
    private readonly limit: number,
    private readonly pattern: RegExp = NAME_PATTERN,
  ) {}

  valueOf(name: string | null | undefined): string {
    if (name === null || name === undefined || name === '') return '__anonymous__';
    if (this.seen.has(name)) return name;
    if (!this.pattern.test(name) || this.seen.size >= this.limit) return OTHER_LABEL;
    this.seen.add(name);
    return name;
  }
}
