/**
 * A second, deliberately small subgraph for the federation tests: a "CMS" that
 * owns article content (headline, word count), the front page, and site users
 * who are readers of the recommender. It is real (buildSubgraphSchema + Apollo
 * Server over HTTP) so the gateway plans, batches and joins exactly as it would
 * against a company's CMS subgraph.
 */
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper';
import { parse } from 'graphql';

export const CMS_SUBGRAPH_NAME = 'cms';

/** Reader is referenced only (`resolvable: false`): our subgraph resolves it. */
export const CMS_TYPE_DEFS = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])

  type Query {
    frontPage: [Article!]!
    "Nullable like most lookups by key: null when the CMS never published the url."
    article(url: String!): Article
    users: [User!]!
  }

  type Article @key(fields: "url") {
    url: String!
    headline: String!
    wordCount: Int!
  }

  type User @key(fields: "id") {
    id: ID!
    name: String!
    reader: Reader!
  }

  type Reader @key(fields: "clientId", resolvable: false) {
    clientId: ID!
  }
`;

export interface CmsArticle {
  url: string;
  headline: string;
  wordCount: number;
}

export interface CmsUser {
  id: string;
  name: string;
  clientId: string;
}

export interface CmsData {
  articles: readonly CmsArticle[];
  /** Urls in front-page order; may repeat (the same story in two slots). */
  frontPage: readonly string[];
  users: readonly CmsUser[];
}

/** How often each resolver ran and how many HTTP operations arrived, by kind. */
export interface CmsCounters {
  operations: number;
  /** Operations that were `_entities` fetches planned by the gateway. */
  entityOperations: number;
  frontPage: number;
  users: number;
  articleReferences: number;
  userReferences: number;
}

export interface RunningCmsSubgraph {
  url: string;
  data: CmsData;
  counters: CmsCounters;
  resetCounters(): void;
  close(): Promise<void>;
}

function zeroCounters(): CmsCounters {
  return { operations: 0, entityOperations: 0, frontPage: 0, users: 0, articleReferences: 0, userReferences: 0 };
}

/** Fails loudly on data that would make the CMS answer with dangling references. */
function indexArticles(data: CmsData): Map<string, CmsArticle> {
  const byUrl = new Map(data.articles.map((a) => [a.url, a]));
  const missing = data.frontPage.filter((url) => !byUrl.has(url));
  if (missing.length > 0) {
    throw new Error(`CMS front page refers to ${missing.length} unknown article(s), e.g. ${missing[0]}`);
  }
  return byUrl;
}

function buildCmsResolvers(data: CmsData, byUrl: Map<string, CmsArticle>, counters: CmsCounters): GraphQLResolverMap<unknown> {
  const usersById = new Map(data.users.map((u) => [u.id, u]));
  return {
    Query: {
      frontPage: () => {
        counters.frontPage++;
        return data.frontPage.map((url) => byUrl.get(url));
      },
      article: (_parent: unknown, args: { url: string }) => byUrl.get(args.url) ?? null,
      users: () => {
        counters.users++;
        return data.users;
      },
    },
    Article: {
      // An article this CMS does not know resolves to null, as a real CMS would
      // for a url it never published; the gateway then reports the null.
      __resolveReference: (ref: { url: string }) => {
        counters.articleReferences++;
        return byUrl.get(ref.url) ?? null;
      },
    },
    User: {
      __resolveReference: (ref: { id: string }) => {
        counters.userReferences++;
        return usersById.get(ref.id) ?? null;
      },
      reader: (user: CmsUser) => ({ clientId: user.clientId }),
    },
  };
}

export async function startCmsSubgraph(data: CmsData): Promise<RunningCmsSubgraph> {
  const counters = zeroCounters();
  const byUrl = indexArticles(data);
  const server = new ApolloServer({
    schema: buildSubgraphSchema({ typeDefs: parse(CMS_TYPE_DEFS), resolvers: buildCmsResolvers(data, byUrl, counters) }),
    plugins: [
      // No Apollo usage reporting here; also keeps the "enabling inline tracing" notice out of test output.
      ApolloServerPluginInlineTraceDisabled(),
      {
        async requestDidStart({ request }) {
          counters.operations++;
          if (request.query?.includes('_entities')) counters.entityOperations++;
        },
      },
    ],
  });
  const { url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } });
  return {
    url,
    data,
    counters,
    resetCounters: () => Object.assign(counters, zeroCounters()),
    close: () => server.stop(),
  };
}

/** What the tests need from the emulator's article list. */
export interface SourceArticle {
  url: string;
  domain: string;
  title: string;
}

export interface CmsDataOptions {
  domain: string;
  /** Distinct articles on the front page (the first ones of the domain). */
  distinctFrontPageArticles: number;
  /** Front-page slots; slots beyond the distinct ones repeat earlier stories. */
  frontPageSize: number;
  /** Client ids the users read as; users cycle through them. */
  clientIds: readonly string[];
  userCount: number;
}

/**
 * CMS content for every emulator article (so any recommended url joins), with a
 * front page that repeats stories and users that share client ids, so the
 * tests can check that duplicates reach the upstream once.
 */
export function buildCmsData(articles: readonly SourceArticle[], options: CmsDataOptions): CmsData {
  const domainUrls = articles.filter((a) => a.domain === options.domain).map((a) => a.url);
  if (domainUrls.length < options.distinctFrontPageArticles) {
    throw new Error(
      `domain ${options.domain} has ${domainUrls.length} articles, the front page needs ${options.distinctFrontPageArticles}`,
    );
  }
  if (options.clientIds.length === 0) throw new Error('buildCmsData needs at least one client id');
  const distinct = domainUrls.slice(0, options.distinctFrontPageArticles);
  const frontPage = Array.from({ length: options.frontPageSize }, (_, slot) => distinct[slot % distinct.length]);
  const users = Array.from({ length: options.userCount }, (_, i) => ({
    id: `user-${i + 1}`,
    name: `Reader ${i + 1}`,
    clientId: options.clientIds[i % options.clientIds.length],
  }));
  return {
    articles: articles.map((a) => ({ url: a.url, headline: `CMS: ${a.title}`, wordCount: 300 + ((a.title.length * 17) % 900) })),
    frontPage,
    users,
  };
}
