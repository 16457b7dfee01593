/**
 * A router for the federation tests: @apollo/gateway inside Apollo Server,
 * over a supergraph composed in the test (no Uplink, no polling), on a free
 * port, plus a tiny GraphQL-over-HTTP client for talking to it.
 */
import { ApolloGateway } from '@apollo/gateway';
import { Kind, parse, print, visit } from 'graphql';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';

export interface RunningGateway {
  url: string;
  close(): Promise<void>;
}

export async function startGateway(supergraphSdl: string): Promise<RunningGateway> {
  const gateway = new ApolloGateway({ supergraphSdl: withoutSecurityFeatures(supergraphSdl) });
  const server = new ApolloServer({ gateway });
  const { url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } });
  // stop() also stops the gateway and drains the HTTP server.
  return { url, close: () => server.stop() };
}

export interface GraphQLResponseError {
  message: string;
  path?: (string | number)[];
  extensions?: Record<string, unknown>;
}

export interface GraphQLResponse<TData> {
  status: number;
  /** The response's `cache-control` header (null without one). */
  cacheControl: string | null;
  data?: TData | null;
  errors?: GraphQLResponseError[];
  /** A router's own additions, e.g. Hive Gateway's `cost` and `responseCache`. */
  extensions?: Record<string, unknown>;
}

/** One POST of an operation; fails on a non-JSON answer so a test never reads an HTML error page as data. */
export async function postGraphQL<TData>(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<GraphQLResponse<TData>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const contentType = response.headers.get('content-type') ?? '';
  const text = await response.text();
  if (!/^application\/(graphql-response\+)?json/.test(contentType)) {
    throw new Error(`${url} answered ${response.status} with content-type "${contentType}": ${text.slice(0, 200)}`);
  }
  const body = JSON.parse(text) as { data?: TData | null; errors?: GraphQLResponseError[]; extensions?: Record<string, unknown> };
  return { status: response.status, cacheControl: response.headers.get('cache-control'), ...body };
}

/**
 * @apollo/gateway enforces no authorization feature and, failing closed,
 * refuses any supergraph that links one `for: SECURITY` (our
 * @requiresScopes). Apollo Router and Hive Gateway enforce them (docs/security.md;
 * Hive's refusal at the edge is tested in test/security/supergraphAccess.test.ts).
 * For this stand-in router the security features are taken out of the
 * supergraph; without a caller proof configured the subgraph does not check
 * scopes either, so the joins under test are unchanged.
 */
function withoutSecurityFeatures(supergraphSdl: string): string {
  const document = parse(supergraphSdl);
  const securityNames = new Set<string>();
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.SCHEMA_DEFINITION && definition.kind !== Kind.SCHEMA_EXTENSION) continue;
    for (const directive of definition.directives ?? []) {
      const argument = (name: string) => directive.arguments?.find((candidate) => candidate.name.value === name)?.value;
      const purpose = argument('for');
      const url = argument('url');
      if (directive.name.value === 'link' && purpose?.kind === Kind.ENUM && purpose.value === 'SECURITY' && url?.kind === Kind.STRING) {
        securityNames.add(/\/([^/]+)\/v[\d.]+$/.exec(url.value)?.[1] ?? '');
      }
    }
  }
  const isSecurity = (name: string) => securityNames.has(name) || [...securityNames].some((feature) => name.startsWith(`${feature}__`));
  const stripped = visit(document, {
    Directive: (node) => {
      if (isSecurity(node.name.value)) return null;
      const url = node.arguments?.find((argument) => argument.name.value === 'url')?.value;
      const feature = url?.kind === Kind.STRING ? /\/([^/]+)\/v[\d.]+$/.exec(url.value)?.[1] : undefined;
      return node.name.value === 'link' && feature !== undefined && securityNames.has(feature) ? null : undefined;
    },
    DirectiveDefinition: (node) => (isSecurity(node.name.value) ? null : undefined),
    ScalarTypeDefinition: (node) => (isSecurity(node.name.value) ? null : undefined),
  });
  return print(stripped);
}
