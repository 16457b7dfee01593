import type { RenderParams } from '../../kernel/wire';
import type { InvalidArgument } from '../errors';

/** The arguments a render.json call is made from, as GraphQL delivers them (null = not given). */
export interface RenderArguments {
  experienceId: string;
  canonicalUrl?: string | null;
  domain?: string | null;
  clientId?: string | null;
}

/** Where each parameter came from, for error paths: an argument name, or e.g. the article's `url`. */
export type RenderArgumentPaths = Record<keyof RenderParams, string>;

const ARGUMENT_PATHS: RenderArgumentPaths = { id: 'experienceId', canonicalUrl: 'canonicalUrl', domain: 'domain', clientId: 'clientId' };

export function toRenderParams(args: RenderArguments): RenderParams {
  const params: RenderParams = { id: args.experienceId };
  if (args.canonicalUrl != null) params.canonicalUrl = args.canonicalUrl;
  if (args.domain != null) params.domain = args.domain;
  if (args.clientId != null) params.clientId = args.clientId;
  return params;
}

/** The upstream's own 400 rules (docs/upstream-contract.md §3), checked first so a bad call is never sent. */
export function validateRenderParams(params: RenderParams, paths: RenderArgumentPaths = ARGUMENT_PATHS): InvalidArgument[] {
  const problems: InvalidArgument[] = [];
  if (params.id.trim() === '') problems.push({ path: paths.id, message: 'must not be empty' });
  if (params.canonicalUrl !== undefined && !isAbsoluteHttpUrl(params.canonicalUrl)) {
    problems.push({ path: paths.canonicalUrl, message: `must be an absolute http(s) URL (got ${JSON.stringify(params.canonicalUrl)})` });
  }
  if (params.domain !== undefined && params.domain.trim() === '') problems.push({ path: paths.domain, message: 'must not be empty' });
  if (params.canonicalUrl === undefined && params.domain === undefined) {
    problems.push({ path: paths.domain, message: `${paths.canonicalUrl} or ${paths.domain} is required (give at least one)` });
  }
  if (params.clientId !== undefined && params.clientId.trim() === '') problems.push({ path: paths.clientId, message: 'must not be empty' });
  return problems;
}

function isAbsoluteHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
