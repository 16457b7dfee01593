import { Agent, get } from 'node:http';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import DataLoader from 'dataloader';
import { parse } from 'graphql';

/*
 * The baseline of the response-cache scenario (bench/responseCacheBench.ts):
 * the smallest Apollo Server 5 subgraph serving the same two operations,
 * `recommendations` and a router's `_entities` request for `Article.related`
 * (startStandaloneServer, no plugins of its own, one DataLoader per request
 * over node:http with keep-alive), as bench/overhead/baselineSubgraph.ts with
 * the Article entity added. Run with NODE_ENV=production; UPSTREAM_URL is the
 * trivial upstream (bench/overhead/trivialUpstream.ts).
 */

const upstream = process.env.UPSTREAM_URL ?? 'http://127.0.0.1:4010';
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

interface Item {
  url: string;
  title: string;
  img: string | null;
  authors: string[];
  sections: string[];
  publishTime: string;
}
interface Params {
  id: string;
  canonicalUrl?: string;
  domain?: string;
}

const typeDefs = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@key"])
  type Recommendation { url: String! title: String! img: String authors: [String!]! sections: [String!]! publishTime: String! }
  type Article @key(fields: "url") { url: String! related(experienceId: ID!): [Recommendation!] }
  type Query { recommendations(experienceId: ID!, canonicalUrl: String, domain: String): [Recommendation!] }
`);

function render(params: Params): Promise<Item[]> {
  const query = new URLSearchParams({ id: params.id });
  if (params.canonicalUrl !== undefined) query.set('canonical_url', params.canonicalUrl);
  if (params.domain !== undefined) query.set('domain', params.domain);
  return new Promise((resolve, reject) => {
    get(`${upstream}/recommenderexperience/render.json?${query}`, { agent }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve((JSON.parse(text) as { recommendation: Item[] }).recommendation));
    }).on('error', reject);
  });
}

interface Context {
  loader: DataLoader<Params, Item[], string>;
}

// Apollo's resolver map types the context as unknown; ours is always the Context built below.
const resolvers = {
  Query: {
    recommendations: (_: unknown, args: { experienceId: string; canonicalUrl?: string; domain?: string }, context: unknown) =>
      (context as Context).loader.load({ id: args.experienceId, canonicalUrl: args.canonicalUrl, domain: args.domain }),
  },
  Article: {
    __resolveReference: (reference: { url: string }) => reference,
    related: (article: { url: string }, args: { experienceId: string }, context: unknown) =>
      (context as Context).loader.load({ id: args.experienceId, canonicalUrl: article.url }),
  },
};

async function main(): Promise<void> {
  const server = new ApolloServer<Context>({ schema: buildSubgraphSchema({ typeDefs, resolvers }) });
  const { url } = await startStandaloneServer(server, {
    listen: { port: 0, host: '127.0.0.1' },
    context: async () => ({
      loader: new DataLoader((keys: readonly Params[]) => Promise.all(keys.map(render)), { cacheKeyFn: (key) => JSON.stringify(key) }),
    }),
  });
  process.stdout.write(`listening ${url}\n`);
}

void main();
process.on('SIGTERM', () => process.exit(0));
