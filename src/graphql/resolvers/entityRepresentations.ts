import { isObjectType, isUnionType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { invalidArguments } from '../errors';

/**
 * Checks each `_entities` representation's `__typename` before
 * @apollo/subgraph resolves it: only the entities of this subgraph (the
 * members of `_Entity`) may be asked for. Anything else (an object type that
 * is not an entity, such as `ArticleAnalytics`, an unknown name, or no name)
 * is the caller's error: BAD_USER_INPUT naming it at that entity's index,
 * while the rest of the batch is answered. Left to @apollo/subgraph, such a
 * representation fails the whole batch, or reaches the `_Entity` union's
 * type resolution, as an internal error.
 */
export function checkEntityRepresentations(schema: GraphQLSchema): GraphQLSchema {
  const entityUnion = schema.getType('_Entity');
  const field = schema.getQueryType()?.getFields()._entities;
  if (!isUnionType(entityUnion) || field === undefined) return schema;
  const entities = new Set(entityUnion.getTypes().map((type) => type.name));
  const resolve = field.resolve;
  if (resolve === undefined) return schema;
  field.resolve = representationsChecked(resolve, entities, schema);
  return schema;
}

type Resolver = GraphQLFieldResolver<unknown, unknown, Record<string, unknown>>;

function representationsChecked(resolve: Resolver, entities: ReadonlySet<string>, schema: GraphQLSchema): Resolver {
  return async (source, args, context, info) => {
    const representations = Array.isArray(args.representations) ? (args.representations as unknown[]) : [];
    const problems = representations.map((representation, index) => problemOf(representation, index, entities, schema));
    if (problems.every((problem) => problem === undefined)) return resolve(source, args, context, info);
    const valid = representations.filter((_representation, index) => problems[index] === undefined);
    const resolved = valid.length === 0 ? [] : ((await resolve(source, { ...args, representations: valid }, context, info)) as unknown[]);
    let next = 0;
    // An Error as a list item fails only that item: graphql-js reports it at `_entities.<index>` and answers null there.
    return problems.map((problem) => problem ?? resolved[next++]);
  };
}

function problemOf(representation: unknown, index: number, entities: ReadonlySet<string>, schema: GraphQLSchema): Error | undefined {
  const typename = isRecord(representation) ? representation.__typename : undefined;
  const path = `representations[${index}].__typename`;
  if (typeof typename !== 'string' || typename === '') {
    return invalidArguments([{ path, message: '__typename is missing: each representation names its entity type' }]);
  }
  if (entities.has(typename)) return undefined;
  const kind = isObjectType(schema.getType(typename)) ? 'a type without @key' : 'no such type';
  return invalidArguments([
    { path, message: `${typename} is not an entity of this subgraph (${kind}); entities: ${[...entities].sort().join(', ')}` },
  ]);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
