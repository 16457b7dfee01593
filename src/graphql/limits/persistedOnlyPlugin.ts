import type { ApolloServerPlugin, GraphQLRequest } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { LimitCode } from './codes';
import { sha256, type PersistedManifest } from './persistedManifest';

/**
 * PERSISTED_QUERIES_ONLY: an operation runs only if it is in the manifest,
 * named by its id (`extensions.persistedQuery.sha256Hash`, as Apollo
 * Client's persisted-query link and routers send it) or sent as the exact
 * text the manifest holds. Checked before parsing, so an unknown text costs
 * neither a parse nor a document-cache entry.
 */
export function persistedOnlyPlugin(manifest: PersistedManifest, onRefusal: (code: LimitCode) => void): ApolloServerPlugin {
  return {
    async requestDidStart({ request }) {
      resolvePersisted(request, manifest);
    },
    // Apollo turns an error thrown by a plugin into a 500 "Internal server
    // error" unless this hook rethrows it; rethrown, it is sent with its code
    // and its extensions.http status (the way GraphQL Armor's token limit does it).
    async unexpectedErrorProcessingRequest({ error }) {
      if (error instanceof PersistedRefusal) {
        onRefusal(error.code);
        throw error;
      }
    },
  };
}

function resolvePersisted(request: GraphQLRequest, manifest: PersistedManifest): void {
  const id = request.extensions?.persistedQuery?.sha256Hash;
  if (typeof id === 'string') {
    const body = manifest.byId.get(id);
    if (body === undefined)
      throw refusal(LimitCode.PERSISTED_QUERY_NOT_IN_LIST, `No persisted operation has the id ${JSON.stringify(id.slice(0, 80))}`);
    request.query = body;
    // Apollo's own APQ handling would otherwise look the id up in its cache (or demand a sha256 of the text).
    const { persistedQuery: _persistedQuery, ...rest } = request.extensions ?? {};
    request.extensions = rest;
    return;
  }
  if (typeof request.query !== 'string' || request.query === '') {
    throw refusal(
      LimitCode.PERSISTED_QUERY_ID_REQUIRED,
      'Only persisted operations are accepted: send extensions.persistedQuery.sha256Hash',
    );
  }
  if (!manifest.bodyHashes.has(sha256(request.query))) {
    throw refusal(
      LimitCode.PERSISTED_QUERY_NOT_IN_LIST,
      'Only persisted operations are accepted, and this operation text is not in the list',
    );
  }
}

class PersistedRefusal extends GraphQLError {
  constructor(
    readonly code: LimitCode,
    message: string,
  ) {
    super(message, { extensions: { code, http: { status: 400 } } });
  }
}

function refusal(code: LimitCode, message: string): PersistedRefusal {
  return new PersistedRefusal(code, message);
}
