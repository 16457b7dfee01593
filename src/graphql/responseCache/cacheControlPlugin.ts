import type { CacheHint, CachePolicy } from '@apollo/cache-control-types';
import type { ApolloServerPlugin, GraphQLRequestContextWillSendResponse, GraphQLRequestListener } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { defaultFieldResolver, isObjectType, type GraphQLFieldResolver, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import { FieldCachePolicy, HintPolicy, isRestricted } from './cachePolicy';
import { fieldCacheRule, typeAnnotation, type CacheAnnotation, type FieldCacheRule } from './fieldCacheRules';

/**
 * Apollo's cache control (`ApolloServerPluginCacheControl({ defaultMaxAge, calculateHttpHeaders: true })`), the same
 * policy and the same `cache-control` header, without its per-field plugin hooks.
 *
 * Apollo's plugin has a `willResolveField`, so Apollo runs its hook dispatcher on every field of every operation, and
 * the plugin builds a policy of closures for each: a third of all the memory a `recommendations` operation allocates
 * (bench/README.md, "The raw path at parity: sixth pass"), for fields that mostly cannot change the policy. Here the schema's
 * fields are wrapped once: a field's rule is read from the schema at start-up (fieldCacheRules.ts), a field whose
 * resolving cannot change the policy (a leaf without a hint, on the default resolver) is read as the default resolver
 * reads it, with no policy unless its value is a method, and each other field folds its policy into the operation's
 * when its value is finished, as Apollo's does. The default resolver is graphql-js's (the server sets no `fieldResolver`).
 * Resolvers set dynamic hints through `info.cacheControl` (@apollo/cache-control-types) as before.
 */
export function cacheControlPlugins(defaultMaxAge: number): ApolloServerPlugin[] {
  const defaultHint = { maxAge: defaultMaxAge };
  const listener: GraphQLRequestListener<object> = {
    executionDidStart: async ({ contextValue, overallCachePolicy }) => {
      // A policy set before execution (by another plugin) stays as it is: field hints are then read but not folded.
      operationOf.set(contextValue, { policy: overallCachePolicy, defaultHint, folding: !isRestricted(overallCachePolicy) });
    },
    willSendResponse: async (requestContext) => setCacheControlHeader(requestContext),
  };
  return [
    {
      serverWillStart: async ({ schema }) => {
        instrument(schema);
      },
      requestDidStart: async () => listener,
    },
    // Apollo installs its own cache-control plugin unless one is named: this one replaces it.
    ApolloServerPluginCacheControlDisabled(),
  ];
}

/** The operation a field belongs to: its policy, and this server's default maxAge (a schema may serve two servers). */
interface OperationCache {
  policy: CachePolicy;
  defaultHint: CacheHint;
  folding: boolean;
}

/** Each operation's, by its context (Apollo keeps its field dispatcher on the context too; a batch's operations get one each). */
const operationOf = new WeakMap<object, OperationCache>();
const INSTRUMENTED = new WeakSet<GraphQLSchema>();

function instrument(schema: GraphQLSchema): void {
  if (INSTRUMENTED.has(schema)) return;
  INSTRUMENTED.add(schema);
  const annotations = new Map<string, CacheAnnotation>();
  const hintFromType = (type: Parameters<typeof typeAnnotation>[0]): CacheHint => {
    let annotation = annotations.get(type.name);
    if (annotation === undefined) annotations.set(type.name, (annotation = typeAnnotation(type)));
    return annotation;
  };
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const rule = fieldCacheRule(field, roots.has(type));
      const folded = folding(field.resolve ?? defaultFieldResolver, rule, hintFromType);
      field.resolve = rule.inert ? methodsFolded(folded) : folded;
    }
  }
}

/**
 * An inert field (fieldCacheRules.ts) as graphql-js's default resolver reads it: a plain value as it is, with no
 * policy; only a method of its source (which the default resolver calls with `info`, so it could set a hint) is folded.
 */
function methodsFolded(folded: GraphQLFieldResolver<unknown, unknown>): GraphQLFieldResolver<unknown, unknown> {
  return (source, args, context, info) => {
    const value =
      (typeof source === 'object' && source !== null) || typeof source === 'function'
        ? (source as Record<string, unknown>)[info.fieldName]
        : undefined;
    return typeof value === 'function' ? folded(source, args, context, info) : value;
  };
}

function folding(
  resolve: GraphQLFieldResolver<unknown, unknown>,
  rule: FieldCacheRule,
  hintFromType: (type: Parameters<typeof typeAnnotation>[0]) => CacheHint,
): GraphQLFieldResolver<unknown, unknown> {
  return (source, args, context, info) => {
    // A WeakMap answers undefined for a key that is no object.
    const operation = operationOf.get(context as object);
    // Not an operation of this plugin's server (a schema shared with another): untouched.
    if (operation === undefined) return resolve(source, args, context, info);
    const policy = new FieldCachePolicy(rule.initial, hintFromType);
    (info as { cacheControl?: FieldCachePolicy }).cacheControl = policy;
    if (!operation.folding) return resolve(source, args, context, info);
    let result: unknown;
    try {
      result = resolve(source, args, context, info);
    } catch (error) {
      fold(policy, rule, info, operation);
      throw error;
    }
    // A value returned as it is, the common case, is finished now: folded without a closure (nor its context).
    if (isPending(result)) foldWhenFinished(result, policy, rule, info, operation);
    else fold(policy, rule, info, operation);
    return result;
  };
}

/** Apollo's end of a field: without a maxAge of its own, a composite (not inheriting) or root field takes the default. */
function fold(policy: FieldCachePolicy, rule: FieldCacheRule, info: GraphQLResolveInfo, operation: OperationCache): void {
  if (policy.maxAge === undefined && (rule.defaultsMaxAge || info.path.prev === undefined)) policy.restrict(operation.defaultHint);
  operation.policy.restrict(policy);
}

function foldWhenFinished(result: unknown, ...field: Parameters<typeof fold>): void {
  whenFinished(result, () => fold(...field));
}

/** Calls `done` once `result` is finished: settled, and for a list, every item settled (Apollo's `whenResultIsFinished`). */
function whenFinished(result: unknown, done: () => void): void {
  if (isPromiseLike(result)) {
    result.then(
      (value) => whenFinished(value, done),
      () => done(),
    );
  } else if (isPending(result)) {
    Promise.all(result as unknown[]).then(done, done);
  } else {
    done();
  }
}

/** A promise, or a list holding one: a value graphql-js has yet to wait for. */
function isPending(value: unknown): boolean {
  return isPromiseLike(value) || (Array.isArray(value) && value.some(isPromiseLike));
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

const CACHEABLE_HEADER = /^max-age=(\d+), (public|private)$/;

/** Apollo's `cache-control` header: the operation's policy, lowered by a header a plugin set already; `no-store` otherwise. */
function setCacheControlHeader({ response, overallCachePolicy }: GraphQLRequestContextWillSendResponse<object>): void {
  const existing = response.http.headers.get('cache-control') || undefined;
  const policy = new HintPolicy(overallCachePolicy);
  if (existing !== undefined && existing !== 'no-store') {
    const match = CACHEABLE_HEADER.exec(existing);
    // Someone else's header, in a form this plugin does not write: left as it is.
    if (match === null) return;
    policy.restrict({ maxAge: Number(match[1]), scope: match[2] === 'public' ? 'PUBLIC' : 'PRIVATE' });
  }
  const cacheable = policy.policyIfCacheable();
  // An empty `errors` list counts as errors, as in Apollo's.
  const withoutErrors = response.body.kind === 'single' && !response.body.singleResult.errors;
  if (cacheable !== null && existing !== 'no-store' && withoutErrors) {
    response.http.headers.set('cache-control', `max-age=${cacheable.maxAge}, ${cacheable.scope.toLowerCase()}`);
  } else {
    response.http.headers.set('cache-control', 'no-store');
  }
}
