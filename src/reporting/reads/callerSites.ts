import { Dimension, FilterOperator } from '../../../contract';
import type { DashboardQueryBody } from '../../kernel/wire';
import { ReadForbidden } from './readForbidden';

/**
 * Sites per caller (JWT_SITES_CLAIM): the domains a caller may read become
 * filters of the vendor queries built here, before any budget is spent.
 * `sites` undefined: every site (no sites claim configured). The shared
 * analytics tables stay shared: a caller's rows are picked from them, never
 * fetched into tables of its own. Applied only by the caller's read path
 * (callerReads.ts), never by a resolver.
 */

export type CallerSites = ReadonlySet<string> | undefined;

/**
 * The dashboard body with the caller's domains as one more filter (filters
 * are AND-ed, so the query's own still narrow it). A DOMAIN EQ filter of the
 * query that names a domain outside them is FORBIDDEN, not an empty answer.
 */
export function restrictDashboardToSites(body: DashboardQueryBody, sites: CallerSites): DashboardQueryBody {
  if (sites === undefined) return body;
  assertSomeSite(sites);
  for (const filter of body.filters) {
    if (filter.filter !== Dimension.DOMAIN || filter.op !== FilterOperator.EQ) continue;
    const outside = filter.value.filter((domain) => !sites.has(domain.trim().toLowerCase()));
    if (outside.length > 0) throw outsideSites(outside);
  }
  return { ...body, filters: [...body.filters, { filter: Dimension.DOMAIN, op: FilterOperator.EQ, value: [...sites].sort() }] };
}

/**
 * Which table a `topArticles` ask reads and which of its rows the caller
 * sees: the asked domain (FORBIDDEN outside the caller's sites), else the
 * caller's one site, else the all-sites table with rows of the caller's sites.
 */
export function rankingScope(domain: string | undefined, sites: CallerSites): { domain?: string; keep?: (url: string) => boolean } {
  if (sites === undefined) return domain === undefined ? {} : { domain };
  assertSomeSite(sites);
  if (domain !== undefined) {
    if (!sites.has(domain.trim().toLowerCase())) throw outsideSites([domain]);
    return { domain };
  }
  if (sites.size === 1) return { domain: [...sites][0] };
  return { keep: (url) => sites.has(siteOfUrl(url) ?? '') };
}

/** `Article.analytics` of an article on another site: FORBIDDEN, before anything is asked. */
export function assertArticleOnSites(url: string, sites: CallerSites): void {
  if (sites === undefined) return;
  const site = siteOfUrl(url);
  if (site === undefined || !sites.has(site))
    throw new ReadForbidden(`the article is on a site this caller may not read (${site ?? 'no site'})`);
}

/** An article's site is its URL's host (the vendor's DOMAIN dimension). */
function siteOfUrl(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

function assertSomeSite(sites: ReadonlySet<string>): void {
  if (sites.size === 0) throw new ReadForbidden('this caller may read no site: its token lists none in the sites claim');
}

function outsideSites(domains: readonly string[]) {
  return new ReadForbidden(`outside the sites this caller may read: ${domains.join(', ')}`);
}
