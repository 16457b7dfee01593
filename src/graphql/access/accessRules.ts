import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  valueFromASTUntyped,
  type ConstDirectiveNode,
  type GraphQLEnumType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';

/**
 * What a caller needs: authenticated, and every scope of at least one
 * alternative (federation's `scopes: [["a", "b"], ["c"]]` is (a AND b) OR c).
 */
export interface ScopeRequirement {
  alternatives: ReadonlyArray<readonly string[]>;
}

/** Where a requirement comes from, for the FORBIDDEN message: `Query.dashboard`, `the value Metric.CPM`. */
export interface Requirement extends ScopeRequirement {
  what: string;
}

/** The scope of a field, read once from the schema: its own directives, its type's, and the scoped enum values its arguments may name. */
export interface FieldRule {
  /** From @authenticated / @requiresScopes on the field and on the type it returns. */
  requirements: Requirement[];
  /** Scoped enum values its arguments may carry: the arguments are walked per call. */
  argumentsMayNameScopedValues: boolean;
}

const AUTHENTICATED = 'authenticated';
const REQUIRES_SCOPES = 'requiresScopes';
/** The subgraph's own directive for enum values (schema/access.graphql). */
const VALUE_REQUIRES_SCOPES = 'valueRequiresScopes';

/**
 * The schema's access declarations, read once: Apollo Router and Hive Gateway
 * read the same @authenticated / @requiresScopes from the supergraph, so the
 * subgraph and the routers decide alike. No list of fields is written again.
 */
export class AccessRules {
  private readonly fields = new Map<string, FieldRule>();
  /** Enum type → internal value (what resolvers receive) → what naming it requires. */
  private readonly scopedValues = new Map<string, Map<unknown, Requirement>>();

  constructor(private readonly schema: GraphQLSchema) {
    for (const type of Object.values(schema.getTypeMap())) if (isEnumType(type)) this.readEnum(type);
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        const rule = this.readField(type.name, field);
        if (rule !== undefined) this.fields.set(`${type.name}.${field.name}`, rule);
      }
    }
  }

  /** The field's rule, or undefined when nothing about it is scoped. */
  ruleOf(typeName: string, fieldName: string): FieldRule | undefined {
    return this.fields.get(`${typeName}.${fieldName}`);
  }

  /** What naming this (internal) value of the enum requires; undefined when nothing. */
  valueRequirement(enumName: string, value: unknown): Requirement | undefined {
    return this.scopedValues.get(enumName)?.get(value);
  }

  /** What the scoped enum values named in these (coerced) argument values require. */
  argumentRequirements(typeName: string, fieldName: string, args: Readonly<Record<string, unknown>>): Requirement[] {
    const type = this.schema.getType(typeName);
    if (!isObjectType(type)) return [];
    const field = type.getFields()[fieldName];
    if (field === undefined) return [];
    const found: Requirement[] = [];
    for (const arg of field.args) this.collectValues(arg.type, args[arg.name], found);
    return found;
  }

  private readEnum(type: GraphQLEnumType): void {
    const values = new Map<unknown, Requirement>();
    for (const value of type.getValues()) {
      const alternatives = scopesOf(value.astNode?.directives, VALUE_REQUIRES_SCOPES);
      if (alternatives !== undefined) values.set(value.value, { alternatives, what: `the value ${type.name}.${value.name}` });
    }
    if (values.size > 0) this.scopedValues.set(type.name, values);
  }

  private readField(typeName: string, field: GraphQLField<unknown, unknown>): FieldRule | undefined {
    const requirements = [
      ...requirementsOf(field.astNode?.directives, `${typeName}.${field.name}`),
      ...typeRequirements(getNamedType(field.type)),
    ];
    const argumentsMayNameScopedValues = field.args.some((arg) => this.mayNameScopedValue(arg.type, new Set()));
    return requirements.length === 0 && !argumentsMayNameScopedValues ? undefined : { requirements, argumentsMayNameScopedValues };
  }

  private mayNameScopedValue(type: GraphQLInputType, seen: Set<string>): boolean {
    const named = getNamedType(type);
    if (isEnumType(named)) return this.scopedValues.has(named.name);
    if (!isInputObjectType(named) || seen.has(named.name)) return false;
    seen.add(named.name);
    return Object.values(named.getFields()).some((field) => this.mayNameScopedValue(field.type, seen));
  }

  private collectValues(type: GraphQLInputType, value: unknown, found: Requirement[]): void {
    if (value === null || value === undefined) return;
    if (isNonNullType(type)) return this.collectValues(type.ofType, value, found);
    if (isListType(type)) {
      for (const item of Array.isArray(value) ? value : [value]) this.collectValues(type.ofType, item, found);
      return;
    }
    if (isEnumType(type)) {
      const requirement = this.scopedValues.get(type.name)?.get(value);
      if (requirement !== undefined && !found.includes(requirement)) found.push(requirement);
      return;
    }
    if (isInputObjectType(type) && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      for (const field of Object.values(type.getFields())) this.collectValues(field.type, record[field.name], found);
    }
  }
}

/** Whether the caller's scopes meet the requirement: every scope of at least one alternative. */
export function satisfies(scopes: ReadonlySet<string>, requirement: ScopeRequirement): boolean {
  return requirement.alternatives.some((all) => all.every((scope) => scopes.has(scope)));
}

/** In words, for the FORBIDDEN message: `the scope reporting:read`, `the scopes a and b, or c`, `an authenticated caller`. */
export function describeScopes(requirement: ScopeRequirement): string {
  if (requirement.alternatives.every((all) => all.length === 0)) return 'an authenticated caller';
  const several = requirement.alternatives.length > 1 || requirement.alternatives.some((all) => all.length > 1);
  return `the scope${several ? 's' : ''} ${requirement.alternatives.map((all) => all.join(' and ')).join(', or ')}`;
}

function typeRequirements(type: GraphQLNamedType): Requirement[] {
  const nodes = [type.astNode, ...(type.extensionASTNodes ?? [])];
  return nodes.flatMap((node) => requirementsOf(node?.directives, type.name));
}

function requirementsOf(directives: readonly ConstDirectiveNode[] | undefined, what: string): Requirement[] {
  const found: Requirement[] = [];
  if (directives?.some((directive) => directive.name.value === AUTHENTICATED)) found.push({ alternatives: [[]], what });
  const alternatives = scopesOf(directives, REQUIRES_SCOPES);
  if (alternatives !== undefined) found.push({ alternatives, what });
  return found;
}

function scopesOf(directives: readonly ConstDirectiveNode[] | undefined, name: string): string[][] | undefined {
  const directive = directives?.find((candidate) => candidate.name.value === name);
  const argument = directive?.arguments?.find((candidate) => candidate.name.value === 'scopes');
  if (argument === undefined) return undefined;
  const value = valueFromASTUntyped(argument.value);
  if (!Array.isArray(value) || !value.every((all) => Array.isArray(all) && all.every((scope) => typeof scope === 'string'))) {
    throw new Error(`@${name} on ${directive?.name.value ?? name}: scopes must be a list of lists of strings`);
  }
  return value as string[][];
}
