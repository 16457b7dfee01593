import { renderUrl, type RenderParamsPool } from './emulatorBench';
import { runLoad, type LoadResult } from './load';
import type { EmulatorProcess, SubgraphProcess } from './processes';
import { advanceClock, readStats, resetStats, type UpstreamStats } from './upstreamClient';

export interface Efficiency {
  scenario: string;
  /** Distinct parameter sets the operation needs: the ideal number of upstream calls. */
  distinct: number;
  calls: number;
}

export interface SubgraphFigures {
  efficiency: Efficiency[];
  signIns: { first: number; operations: number; signIns: number; afterExpiry: { operations: number; signIns: number } };
  overhead: { concurrency: number; direct: LoadResult; subgraph: LoadResult }[];
}

const RECOMMENDATION_FIELDS = 'position url title img authors sections publishTime publishedAt';

async function graphql(subgraph: SubgraphProcess, query: string, variables: Record<string, unknown> = {}): Promise<void> {
  const response = await fetch(subgraph.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { errors?: unknown };
  if (response.status !== 200 || body.errors !== undefined) {
    throw new Error(`subgraph answered ${response.status}: ${JSON.stringify(body).slice(0, 500)}`);
  }
}

/** Upstream calls of one operation, read from the emulator's counters. */
async function callsOf(emulator: EmulatorProcess, run: () => Promise<void>): Promise<UpstreamStats> {
  await resetStats(emulator.url);
  await run();
  return readStats(emulator.url);
}

export async function benchSubgraph(
  emulator: EmulatorProcess,
  subgraph: SubgraphProcess,
  pool: RenderParamsPool,
): Promise<SubgraphFigures> {
  const similar = emulator.experiences.find((e) => e.rankingProfile === 'similar') ?? emulator.experiences[0];
  const urls = pool.urls.get(similar.domain)!;
  const efficiency: Efficiency[] = [];

  // A front page: 50 article slots, 35 distinct URLs (30% repeats), joined in through _entities.
  const frontPage = Array.from({ length: 50 }, (_, i) => ({ __typename: 'Article', url: urls[i < 35 ? i : i - 35] }));
  let stats = await callsOf(emulator, () =>
    graphql(
      subgraph,
      `query($reps: [_Any!]!, $id: ID!) { _entities(representations: $reps) { ... on Article { related(experienceId: $id) { ${RECOMMENDATION_FIELDS} } } } }`,
      { reps: frontPage, id: similar.id },
    ),
  );
  efficiency.push({ scenario: 'front page: 50 Article entities, 35 distinct URLs', distinct: 35, calls: stats.render.count });

  // A list of 100 readers, 40 distinct client ids.
  const readers = Array.from({ length: 100 }, (_, i) => ({ __typename: 'Reader', clientId: pool.clients[i % 40] }));
  stats = await callsOf(emulator, () =>
    graphql(
      subgraph,
      `
        query ($reps: [_Any!]!, $id: ID!, $domain: String!) {
          _entities(representations: $reps) {
            ... on Reader {
              recommendations(experienceId: $id, domain: $domain) {
                url
              }
            }
          }
        }
      `,
      { reps: readers, id: similar.id, domain: similar.domain },
    ),
  );
  efficiency.push({ scenario: 'reader list: 100 Reader entities, 40 distinct client ids', distinct: 40, calls: stats.render.count });

  // The same render parameters asked through two aliases in one operation.
  stats = await callsOf(emulator, () =>
    graphql(
      subgraph,
      `
        query ($id: ID!, $url: String!) {
          a: recommendations(experienceId: $id, canonicalUrl: $url) {
            url
          }
          b: recommendations(experienceId: $id, canonicalUrl: $url) {
            title
          }
        }
      `,
      { id: similar.id, url: urls[0] },
    ),
  );
  efficiency.push({ scenario: 'two aliases with the same parameters', distinct: 1, calls: stats.render.count });

  // A dashboard of three metrics is one reporting call; being the first, it also signs in.
  const dashboard = `{ dashboard(query: { dates: { last: { number: 30, unit: DAY } }, groupBy: [URL], metrics: [PAGE_VIEWS_TOTAL, UNIQUE_USERS, REVENUE_TOTAL], limit: 10 }) { metric total rows { key total } } }`;
  stats = await callsOf(emulator, () => graphql(subgraph, dashboard));
  efficiency.push({ scenario: 'dashboard with 3 metrics', distinct: 1, calls: stats.dashboard.count });
  const first = stats.signin.count;

  // Sign-ins: the token is shared by every operation and renewed only when needed.
  const cheapDashboard = {
    query: `{ dashboard(query: { dates: { last: { number: 1, unit: HOUR } }, metrics: [PAGE_VIEWS_TOTAL] }) { total } }`,
  };
  const operations = 10_000;
  stats = await callsOf(emulator, async () => {
    const result = await runLoad({
      concurrency: 16,
      requests: operations,
      warmup: 0,
      build: () => ({ method: 'POST', url: subgraph.url, body: cheapDashboard }),
    });
    if (result.errors > 0) throw new Error(`${result.errors} dashboard operations failed`);
  });
  const signIns = stats.signin.count;
  // Past the token's 14 days on the emulator's clock: one renewal for all concurrent operations.
  await advanceClock(emulator.url, 15 * 24 * 3600);
  stats = await callsOf(emulator, async () => {
    const result = await runLoad({
      concurrency: 16,
      requests: 1000,
      warmup: 0,
      build: () => ({ method: 'POST', url: subgraph.url, body: cheapDashboard }),
    });
    if (result.errors > 0) throw new Error(`${result.errors} dashboard operations failed after expiry`);
  });

  // Overhead: the same render parameters, straight to render.json and through the subgraph.
  const overhead = [];
  for (const concurrency of [1, 4, 8]) {
    const direct = await runLoad({
      concurrency,
      requests: 3000,
      warmup: 300,
      build: (i) => ({ method: 'GET', url: renderUrl(emulator.url, similar, pool, i) }),
    });
    const subgraphResult = await runLoad({
      concurrency,
      requests: 3000,
      warmup: 300,
      build: (i) => {
        const params = new URL(renderUrl(emulator.url, similar, pool, i)).searchParams;
        return {
          method: 'POST',
          url: subgraph.url,
          body: {
            query: `query($id: ID!, $url: String, $client: ID) { recommendations(experienceId: $id, canonicalUrl: $url, clientId: $client) { ${RECOMMENDATION_FIELDS} } }`,
            variables: { id: params.get('id'), url: params.get('canonical_url'), client: params.get('client_id') },
          },
        };
      },
    });
    overhead.push({ concurrency, direct, subgraph: subgraphResult });
  }

  return {
    efficiency,
    signIns: { first, operations, signIns, afterExpiry: { operations: 1000, signIns: stats.signin.count } },
    overhead,
  };
}
