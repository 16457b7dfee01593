import type { ParamError } from '../outcome';

/** The validated query of a render.json request. */
export interface RenderParams {
  experienceId: string;
  canonicalUrl?: string;
  /**
   * Informational only: the experience already names its domain, which wins.
   * The contract requires one of `canonical_url` / `domain` so that a request
   * says which site it comes from; the engine never filters by it.
   */
  domain?: string;
  clientId?: string;
}

export type ParsedParams = { ok: true; params: RenderParams } | { ok: false; errors: ParamError[] };

/**
 * Checks every parameter before reporting, so a client sees all of its
 * mistakes at once. An empty value counts as absent: `?domain=` says nothing.
 */
export function parseRenderParams(query: URLSearchParams): ParsedParams {
  const experienceId = present(query, 'id');
  const canonicalUrl = present(query, 'canonical_url');
  const domain = present(query, 'domain');
  const clientId = present(query, 'client_id');

  const errors: ParamError[] = [];
  if (experienceId === undefined) errors.push({ path: 'id', message: 'id is required' });
  if (canonicalUrl !== undefined && !isAbsoluteHttpUrl(canonicalUrl)) {
    errors.push({
      path: 'canonical_url',
      message: `canonical_url must be an absolute http(s) URL, got ${JSON.stringify(canonicalUrl)}`,
    });
  }
  if (canonicalUrl === undefined && domain === undefined) {
    errors.push({ path: 'domain', message: 'domain is required when canonical_url is absent' });
  }
  if (errors.length > 0 || experienceId === undefined) return { ok: false, errors };
  return { ok: true, params: { experienceId, canonicalUrl, domain, clientId } };
}

function present(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name);
  return value === null || value === '' ? undefined : value;
}

function isAbsoluteHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol, hostname } = new URL(value);
  return (protocol === 'http:' || protocol === 'https:') && hostname !== '';
}
