import { buildSubgraphSchema } from '@apollo/subgraph';
import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { enforceScopes } from './access/enforceScopes';
import { withoutAuthorizationDirectives } from './authorizationDirectives';
import { resolvers } from './resolvers';
import { checkEntityRepresentations } from './resolvers/entityRepresentations';
import { loadTypeDefs } from './schema';

export interface SchemaOptions {
  /**
   * Whether `_service { sdl }` (what a router composes) carries @authenticated and @requiresScopes; default true.
   * The schema that runs keeps them either way, so the subgraph enforces its scopes whatever it publishes.
   */
  authorizationDirectivesInSdl?: boolean;
}

/**
 * The subgraph's executable schema: schema/*.graphql with the resolver map, the scopes it declares enforced, and each
 * `_entities` representation's type checked (a non-entity is BAD_USER_INPUT).
 */
export function buildSchema(options: SchemaOptions = {}): GraphQLSchema {
  const typeDefs = loadTypeDefs();
  const schema = checkEntityRepresentations(enforceScopes(withEnumDefaultsAsInternalValues(buildSubgraphSchema({ typeDefs, resolvers }))));
  return options.authorizationDirectivesInSdl === false ? servingSdlOf(schema, withoutAuthorizationDirectives(typeDefs)) : schema;
}

/**
 * `_service { sdl }` answers with `typeDefs` printed as @apollo/subgraph prints a subgraph's SDL (by building it:
 * the same printer, so a router reads what it would read of a subgraph declared that way); nothing else changes.
 */
function servingSdlOf(schema: GraphQLSchema, typeDefs: DocumentNode): GraphQLSchema {
  const service = buildSubgraphSchema({ typeDefs }).getQueryType()?.getFields()._service?.resolve;
  const field = schema.getQueryType()?.getFields()._service;
  if (service === undefined || field === undefined) throw new Error('a subgraph schema without Query._service');
  const { sdl } = service(undefined, {}, undefined, undefined as never) as { sdl: string };
  field.resolve = () => ({ sdl });
  return schema;
}

/**
 * buildSubgraphSchema coerces argument and input-field defaults before it
 * applies the enum value maps (contract/names.ts), so a default such as
 * `unit: DAY` keeps the schema name where the enum now holds the upstream
 * name `day`. Printing the schema (introspection, Apollo's schema hash) then
 * fails with `Enum "TimeUnit" cannot represent value: "DAY"`, and resolvers
 * would receive schema names. This rewrites every default to internal values.
 */
function withEnumDefaultsAsInternalValues(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        for (const arg of field.args) {
          if (arg.defaultValue !== undefined) arg.defaultValue = toInternal(arg.type, arg.defaultValue);
        }
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (field.defaultValue !== undefined) field.defaultValue = toInternal(field.type, field.defaultValue);
      }
    }
  }
  return schema;
}

function toInternal(type: GraphQLInputType, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (isNonNullType(type)) return toInternal((type as GraphQLNonNull<GraphQLInputType>).ofType, value);
  if (isListType(type)) {
    const itemType = (type as GraphQLList<GraphQLInputType>).ofType;
    return Array.isArray(value) ? value.map((item) => toInternal(itemType, item)) : toInternal(itemType, value);
  }
  if (isEnumType(type)) return enumInternal(type, value);
  if (isInputObjectType(type) && typeof value === 'object') return inputObjectInternal(type, value as Record<string, unknown>);
  return value;
}

/** A schema name becomes its internal value; a value that already is one stays. */
function enumInternal(type: GraphQLEnumType, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return type.getValue(value)?.value ?? value;
}

function inputObjectInternal(type: GraphQLInputObjectType, value: Record<string, unknown>): Record<string, unknown> {
  const fields = type.getFields();
  return Object.fromEntries(
    Object.entries(value).map(([name, fieldValue]) => [
      name,
      fields[name] === undefined ? fieldValue : toInternal(fields[name].type, fieldValue),
    ]),
  );
}
