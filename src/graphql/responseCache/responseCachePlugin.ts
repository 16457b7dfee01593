import { hash } from 'node:crypto';
import type { ApolloServerPlugin } from '@apollo/server';
import ApolloServerPluginResponseCache from '@apollo/server-plugin-response-cache';
import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import type { Context } from '../../operation/context';
import type { Caller } from '../../auth/callers/caller';
import { CountdownCache } from './countdownCache';

/**
 * Whole responses of repeated queries, Apollo's own response cache
 * (`@apollo/server-plugin-response-cache`): keyed as Apollo keys them (query
 * text, operation name, variables; a router's `_entities` request for the
 * same representations is the same key), stored in the given cache (the one
 * APQ uses: in process, or Redis when `REDIS_URL` is set) for the response's
 * max-age, i.e. the cache hints the resolvers set (src/graphql/responseCache/cacheHints.ts).
 *
 * What a caller may read is part of every key: a response made for a caller
 * holding revenue:read (or other sites) is never served to one without;
 * callers with the same scopes and sites share entries. A PRIVATE response
 * (shaped by the caller's scopes or sites, or personalized by a `clientId`,
 * which the variables key) is stored only under that access, Apollo's
 * "session"; with no access to key it by (no jwt proof) it is never stored.
 * Never stored either: a response with any error, and one whose hints make it
 * uncacheable (max-age 0, e.g. a TTL of 0 or a stale answer).
 * A hit is served after parsing and validation (so every limit still
 * applies) and before execution: no resolver, no loader, no upstream call.
 */
export function responseCachePlugin(cache: KeyValueCache<string>, now?: () => number): ApolloServerPlugin<Context> {
  return ApolloServerPluginResponseCache<Context>({
    cache: new CountdownCache(cache, now),
    // The plugin's own key, a sha256 of the key data's JSON, in Node's one-shot form: a third of the
    // hash object's CPU, paid on every request, hit or miss (the raw path's profile).
    generateCacheKey: (_, keyData) => hash('sha256', JSON.stringify(keyData)),
    sessionId: async ({ contextValue }) => {
      const access = accessKey(contextValue.caller);
      return access === undefined ? null : JSON.stringify(access);
    },
    extraCacheKeyData: async ({ contextValue }) => accessKey(contextValue.caller),
  });
}

/** The caller's scopes and sites, sorted; nothing when the subgraph checks neither (no jwt proof). */
function accessKey(caller: Caller | undefined): { scopes: string[]; sites: string[] | 'all' } | undefined {
  if (caller?.scopes === undefined && caller?.sites === undefined) return undefined;
  return { scopes: [...(caller.scopes ?? [])].sort(), sites: caller.sites === undefined ? 'all' : [...caller.sites].sort() };
}
