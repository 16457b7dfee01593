/**
 * Joins an endpoint path onto a configured base URL, keeping any path prefix
 * of the base (`https://host/analytics/` + `/api/x` → `/analytics/api/x`,
 * where `new URL('/api/x', base)` would drop the prefix), and adds the query
 * through URLSearchParams so every value is encoded. Undefined values are
 * left out rather than sent as the string "undefined".
 */
export function buildUrl(base: string, path: string, query: Record<string, string | undefined> = {}): URL {
  if (!path.startsWith('/')) throw new TypeError(`buildUrl: path must start with "/" (got ${JSON.stringify(path)})`);
  const url = new URL(base);
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  url.hash = '';
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.append(name, value);
  }
  return url;
}
