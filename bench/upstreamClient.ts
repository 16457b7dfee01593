/** The few upstream calls the benchmark makes itself, over plain fetch. */

export const DEMO_EMAIL = 'api@demo.example';
export const DEMO_PASSWORD = 'demo-api-password';

export async function signIn(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/user/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: DEMO_EMAIL, password: DEMO_PASSWORD }),
  });
  if (response.status !== 200) throw new Error(`sign-in answered ${response.status}`);
  return ((await response.json()) as { token: string }).token;
}

export interface DashboardRowWire {
  total: number;
  items: { id: string; value: string; type: string }[];
}

export async function dashboardQuery(
  baseUrl: string,
  token: string,
  body: unknown,
): Promise<{ metric: string; total: number; actualData: { values: DashboardRowWire[] } }[]> {
  const response = await fetch(`${baseUrl}/api/dashboard/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`dashboard answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as never;
}

/** The most-read article URLs of a domain over the last 30 days. */
export async function topUrls(baseUrl: string, token: string, domain: string, limit: number): Promise<string[]> {
  const [result] = await dashboardQuery(baseUrl, token, {
    dates: { last: { number: 30, dimension: 'day' } },
    filters: [{ filter: 'domain', op: 'eq', value: [domain] }],
    groupBy: ['url'],
    metrics: ['pageViewsTotal'],
    order: { metric: 'pageViewsTotal', sort: 'DESC' },
    granularity: 'daily',
    limit,
  });
  return result.actualData.values.map((row) => row.items[0].value);
}

export interface UpstreamStats {
  signin: { count: number; distinct: number };
  dashboard: { count: number; distinct: number };
  render: { count: number; distinct: number };
}

export async function readStats(baseUrl: string): Promise<UpstreamStats> {
  return (await (await fetch(`${baseUrl}/__emulator/stats`)).json()) as UpstreamStats;
}

export async function resetStats(baseUrl: string): Promise<void> {
  await fetch(`${baseUrl}/__emulator/stats`, { method: 'DELETE' });
}

export async function advanceClock(baseUrl: string, seconds: number): Promise<void> {
  const response = await fetch(`${baseUrl}/__emulator/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advanceSeconds: seconds }),
  });
  if (response.status !== 200) throw new Error(`clock answered ${response.status}`);
}
