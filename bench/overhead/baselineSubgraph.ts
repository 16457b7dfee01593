import { Agent, get } from 'node:http';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import DataLoader from 'dataloader';
import { parse, type GraphQLResolveInfo } from 'graphql';

/*
 * The baseline of the overhead and response-cache scenarios: the smallest
 * Apollo Server 5 subgraph serving the same `recommendations` field and
 * `Article.related` (for a router's `_entities` requests), with
 * startStandaloneServer, no plugins of its own, one DataLoader per request
 * over node:http with keep-alive. Run with NODE_ENV=production; UPSTREAM_URL
 * is the trivial upstream.
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
  clientId?: string;
}

const typeDefs = parse(`
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@key"])
  type Recommendation { position: Int! url: String! title: String! img: String authors: [String!]! sections: [String!]! publishTime: String! publishedAt: String! }
  type Article @key(fields: "url") { url: String! related(experienceId: ID!): [Recommendation!] }
  type Query { recommendations(experienceId: ID!, canonicalUrl: String, domain: String, clientId: ID): [Recommendation!] }
`);

function render(params: Params): Promise<Item[]> {
  const query = new URLSearchParams({ id: params.id });
  if (params.canonicalUrl !== undefined) query.set('canonical_url', params.canonicalUrl);
  if (params.domain !== undefined) query.set('domain', params.domain);
  if (params.clientId !== undefined) query.set('client_id', params.clientId);
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

const resolvers = {
  Query: {
    // Apollo's resolver map types the context as unknown; ours is always the Context built below.
    recommendations: (
      _: unknown,
      args: { experienceId: string; canonicalUrl?: string; domain?: string; clientId?: string },
      context: unknown,
    ) =>
      (context as Context).loader.load({
        id: args.experienceId,
        canonicalUrl: args.canonicalUrl,
        domain: args.domain,
        clientId: args.clientId,
      }),
  },
  Article: {
    __resolveReference: (reference: { url: string }) => reference,
    related: (article: { url: string }, args: { experienceId: string }, context: unknown) =>
      (context as Context).loader.load({ id: args.experienceId, canonicalUrl: article.url }),
  },
  Recommendation: {
    position: (_: Item, __: unknown, ___: unknown, info: GraphQLResolveInfo) => Number(info.path.prev?.key ?? 0) + 1,
    publishedAt: (item: Item) => new Date(`${item.publishTime.replace(' ', 'T')}Z`).toISOString(),
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
