import { Agent, request } from 'undici';
import { mostReadArticles } from './mostRead';
import type { SubgraphProcess } from './processes';
import { fmt } from './stats';

/*
 * The newsroom's workload (issue 21), shared by `npm run bench -- newsroom`
 * (bench/newsroom.ts) and `npm run bench -- fair-share` (bench/fairShare.ts):
 * EDITORS editors each open an article page every 10 s (its panel asks
 * `Article.analytics`, default window, through `_entities` as a router sends
 * it), picking among the POPULAR most-read articles with skewed popularity
 * (Zipf), 10 % of them outside the 500 most read; WIDGETS homepage widgets ask
 * `topArticles(limit: 10)` every 5 s. A scenario may add a greedy caller: one
 * client sending a distinct `dashboard` every few seconds.
 */

export const SEED = 42;
export const EDITORS = 20;
export const WIDGETS = 5;
export const POPULAR = 200;
export const LONG_TAIL_SHARE = 0.1;
export const EDITOR_PERIOD_MS = 10_000;
export const WIDGET_PERIOD_MS = 5_000;
export const WARM_MS = 120_000;

export const PANEL = `query Panel($reps: [_Any!]!) { _entities(representations: $reps) { ... on Article { analytics { pageViews uniqueUsers averageScroll fetchedAt } } } }`;
export const WIDGET = `query Widget { topArticles(limit: 10) { rank value article { url } } }`;

export interface Ask {
  kind: 'editor' | 'widget' | 'greedy';
  longTail: boolean;
  atMs: number;
  ms: number;
  ok: boolean;
  codes: string[];
  /** The seconds the refusal said to wait (`extensions.retryAfter`), if it said. */
  retryAfter?: number;
  /** With `retryAtRetryAfter`: the one retry of a refused long-tail ask, sent at its `retryAfter`. */
  retry?: Ask;
}

/** What one request got: its error codes (none: answered) and the first `retryAfter` among them. */
interface Sent {
  codes: string[];
  retryAfter?: number;
}

/** A deterministic stream of numbers in [0, 1) (mulberry32): the same run every time. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The site's articles, most read over the last 7 days first (bench/mostRead.ts): no upstream budget is spent. */
export function articles(): string[] {
  return mostReadArticles(SEED);
}

/** Zipf over the popular articles (a few on many screens, most on one), a share from beyond the top 500. */
export function picker(urls: string[], next: () => number): () => { url: string; longTail: boolean } {
  const weights = Array.from({ length: POPULAR }, (_, rank) => 1 / (rank + 1));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const tail = urls.slice(500);
  return () => {
    if (tail.length > 0 && next() < LONG_TAIL_SHARE) return { url: tail[Math.floor(next() * tail.length)], longTail: true };
    let target = next() * total;
    for (let rank = 0; rank < POPULAR; rank++) {
      target -= weights[rank];
      if (target <= 0) return { url: urls[rank], longTail: false };
    }
    return { url: urls[POPULAR - 1], longTail: false };
  };
}

/** One ask: answered (no error), or the error codes it got. */
async function send(
  agent: Agent,
  url: string,
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string>,
): Promise<Sent> {
  const response = await request(url, {
    dispatcher: agent,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.body.json()) as { errors?: { extensions?: { code?: string; retryAfter?: unknown } }[] };
  const codes = (body.errors ?? []).map((error) => error.extensions?.code ?? 'UNKNOWN');
  const retryAfter = body.errors?.map((error) => error.extensions?.retryAfter).find((value) => typeof value === 'number');
  return {
    codes: response.statusCode === 200 ? codes : [`HTTP_${response.statusCode}`, ...codes],
    ...(typeof retryAfter === 'number' ? { retryAfter } : {}),
  };
}

/** A metric's sum over the replicas' /metrics. */
export async function scrapeSum(replicas: SubgraphProcess[], prefix: string): Promise<number> {
  let sum = 0;
  for (const replica of replicas) {
    const text = await (await fetch(replica.url.replace(/\/graphql$/, '/metrics'))).text();
    for (const line of text.split('\n')) if (line.startsWith(prefix)) sum += Number(line.split(' ').pop());
  }
  return sum;
}

/** What a scenario adds to the newsroom's load: headers per kind of ask (a router's proof, a client name), a greedy caller. */
export interface LoadOptions {
  headers?: (kind: Ask['kind']) => Record<string, string>;
  /** One client sending a distinct `dashboard` every `periodMs` (the `turn`th asks the last turn + 1 hours). */
  greedyPeriodMs?: number;
  /**
   * An editor's long-tail ask refused with `retryAfter` is sent once more at `retryAfter` (beside the editor's
   * cadence, to the next replica, as a client's retry lands anywhere), its outcome kept on the ask (`retry`).
   */
  retryAtRetryAfter?: boolean;
}

/** The greedy caller's dashboard: distinct every turn, so neither the answer cache nor a merge serves it. */
function greedyDashboard(turn: number): string {
  return `query Greedy { dashboard(query: { dates: { last: { number: ${turn + 1}, unit: HOUR } }, metrics: [PAGE_VIEWS_TOTAL] }) { metric total } }`;
}

export async function runLoad(replicas: SubgraphProcess[], urls: string[], seconds: number, options: LoadOptions = {}): Promise<Ask[]> {
  const agent = new Agent({ connections: EDITORS + WIDGETS + 8, keepAliveTimeout: 30_000 });
  const asks: Ask[] = [];
  const retries: Promise<void>[] = [];
  const started = performance.now();
  const ask = async (kind: Ask['kind'], longTail: boolean, replica: SubgraphProcess, query: string, variables: Record<string, unknown>) => {
    const atMs = performance.now() - started;
    const sent = await send(agent, replica.url, query, variables, options.headers?.(kind) ?? {}).catch((): Sent => ({
      codes: ['NETWORK'],
    }));
    const { codes, retryAfter } = sent;
    return {
      kind,
      longTail,
      atMs,
      ms: performance.now() - started - atMs,
      ok: codes.length === 0,
      codes,
      ...(retryAfter === undefined ? {} : { retryAfter }),
    };
  };
  const endAt = started + seconds * 1000;
  const loop = async (kind: Ask['kind'], index: number, periodMs: number) => {
    const next = random(SEED * 1000 + index + (kind === 'widget' ? 500 : kind === 'greedy' ? 900 : 0));
    const pick = picker(urls, next);
    // Staggered, so the asks spread over the period as real screens do.
    await new Promise((resolve) => setTimeout(resolve, next() * periodMs));
    for (let turn = 0; performance.now() < endAt && turn < 10_000; turn++) {
      const replica = replicas[(index + turn) % replicas.length];
      const article = kind === 'editor' ? pick() : { url: '', longTail: false };
      const variables = kind === 'editor' ? { reps: [{ __typename: 'Article', url: article.url }] } : {};
      const query = kind === 'editor' ? PANEL : kind === 'widget' ? WIDGET : greedyDashboard(turn);
      const asked: Ask = await ask(kind, article.longTail, replica, query, variables);
      asks.push(asked);
      if (options.retryAtRetryAfter === true && asked.longTail && asked.retryAfter !== undefined) {
        const retryAfterMs = asked.retryAfter * 1000;
        const next = replicas[(index + turn + 1) % replicas.length];
        retries.push(
          new Promise((resolve) => setTimeout(resolve, retryAfterMs)).then(async () => {
            asked.retry = await ask(kind, true, next, query, variables);
          }),
        );
      }
      const waitMs = periodMs - (performance.now() - started - asked.atMs);
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  };
  try {
    await Promise.all([
      ...Array.from({ length: EDITORS }, (_, i) => loop('editor', i, EDITOR_PERIOD_MS)),
      ...Array.from({ length: WIDGETS }, (_, i) => loop('widget', i, WIDGET_PERIOD_MS)),
      ...(options.greedyPeriodMs === undefined ? [] : [loop('greedy', 0, options.greedyPeriodMs)]),
    ]);
    await Promise.all(retries);
  } finally {
    await agent.close();
  }
  return asks;
}

export function errorTally(asks: Ask[]): string {
  const counts = new Map<string, number>();
  for (const ask of asks)
    for (const code of new Set(ask.codes)) counts.set(`${ask.kind} ${code}`, (counts.get(`${ask.kind} ${code}`) ?? 0) + 1);
  return counts.size === 0 ? 'none' : [...counts].map(([code, count]) => `${code} × ${count}`).join(', ');
}

export function percent(part: number, whole: number): string {
  return whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)} %`;
}

/**
 * The long tail after warm-up: answered at once, on the first retry at `retryAfter`, and by it (both), of the
 * asks after the first two minutes.
 */
export function retryRow(label: string, asks: Ask[]): string {
  const late = asks.filter((ask) => ask.atMs >= WARM_MS);
  const atOnce = late.filter((ask) => ask.ok).length;
  const refused = late.filter((ask) => !ask.ok);
  const retried = refused.filter((ask) => ask.retry !== undefined);
  const onRetry = retried.filter((ask) => ask.retry?.ok === true).length;
  const retryWaits = retried.map((ask) => ask.retryAfter ?? 0).sort((a, b) => a - b);
  const medianRetryAfter = retryWaits[Math.floor(retryWaits.length / 2)];
  return (
    `| ${label} | ${late.length} | ${percent(atOnce, late.length)} | ${retried.length} of ${refused.length} | ` +
    `${percent(onRetry, retried.length)} | ${percent(atOnce + onRetry, late.length)} | ${medianRetryAfter ?? 'n/a'} s |`
  );
}

export function row(label: string, asks: Ask[]): string {
  const early = asks.filter((ask) => ask.atMs < WARM_MS);
  const late = asks.filter((ask) => ask.atMs >= WARM_MS);
  const answered = (list: Ask[]) => list.filter((ask) => ask.ok).length;
  const waits = late.map((ask) => ask.ms).sort((a, b) => a - b);
  const at = (q: number) => waits[Math.min(waits.length - 1, Math.floor(q * waits.length))] ?? 0;
  return `| ${label} | ${asks.length} | ${percent(answered(early), early.length)} | ${percent(answered(late), late.length)} | ${fmt(at(0.5))} | ${fmt(at(0.95))} |`;
}
