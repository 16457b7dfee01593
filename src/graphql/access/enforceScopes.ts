import { defaultFieldResolver, isObjectType, type GraphQLSchema } from 'graphql';
import type { Caller } from '../../auth/callers/caller';
import { AccessRules, describeScopes, satisfies, type Requirement } from './accessRules';
import { forbidden } from './forbidden';

/**
 * The one rule, from the schema's own declarations: a field whose scopes the
 * caller lacks (or whose arguments name a value it may not use) throws
 * FORBIDDEN before its resolver runs, so nothing is asked of any upstream;
 * the error sits at its path and the fields beside it still answer. Only a
 * caller whose JWT was verified has scopes: without the jwt proof the
 * routers enforce the same directives at the edge.
 */
export function enforceScopes(schema: GraphQLSchema): GraphQLSchema {
  const rules = new AccessRules(schema);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const rule = rules.ruleOf(type.name, field.name);
      if (rule === undefined) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      const typeName = type.name;
      const check = (args: Record<string, unknown>, context: { caller?: Caller }): void => {
        const missing = missingRequirement(rules, context.caller, typeName, field.name, args);
        if (missing !== undefined) throw forbidden(`${typeName}.${field.name} is not readable: ${explain(missing)}`);
      };
      field.resolve = (source, args: Record<string, unknown>, context: { caller?: Caller }, info) => {
        check(args, context);
        return resolve(source, args, context, info);
      };
      // A subscription field: refused when it opens, before its feed asks any table, not per event after.
      const subscribe = field.subscribe;
      if (subscribe !== undefined) {
        field.subscribe = (source, args: Record<string, unknown>, context: { caller?: Caller }, info) => {
          check(args, context);
          return subscribe(source, args, context, info);
        };
      }
    }
  }
  return schema;
}

function missingRequirement(
  rules: AccessRules,
  caller: Caller | undefined,
  typeName: string,
  fieldName: string,
  args: Readonly<Record<string, unknown>>,
): Requirement | undefined {
  const scopes = caller?.scopes;
  if (scopes === undefined) return undefined;
  const rule = rules.ruleOf(typeName, fieldName);
  if (rule === undefined) return undefined;
  const unmet = rule.requirements.find((requirement) => !satisfies(scopes, requirement));
  if (unmet !== undefined || !rule.argumentsMayNameScopedValues) return unmet;
  return rules.argumentRequirements(typeName, fieldName, args).find((requirement) => !satisfies(scopes, requirement));
}

function explain(requirement: Requirement): string {
  return `${requirement.what} needs ${describeScopes(requirement)}`;
}
