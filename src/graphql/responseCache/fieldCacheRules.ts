import type { CacheHint, CacheScope } from '@apollo/cache-control-types';
import { getNamedType, isCompositeType, Kind, type ConstDirectiveNode, type GraphQLCompositeType, type GraphQLField } from 'graphql';
import { HintPolicy, isRestricted } from './cachePolicy';

/** A `@cacheControl` as Apollo's cache-control plugin reads it: a hint, or `inheritMaxAge` (with a scope at most). */
export type CacheAnnotation = CacheHint & { inheritMaxAge?: true };

/**
 * How one field of an object type takes part in the response's cache policy,
 * decided once from the schema: Apollo's plugin decides it again on every
 * field it resolves (its `willResolveField`).
 */
export interface FieldCacheRule {
  /** The field's policy before its resolver runs: its type's hint, then its own. */
  initial: CacheHint;
  /** A composite field that neither it nor its type marks `inheritMaxAge`: without a maxAge by its end, it gets the default. */
  defaultsMaxAge: boolean;
  /**
   * A leaf of a non-root type with no hint, on the default resolver: its policy starts and ends empty, so only a
   * method on its source (called with `info`) could give it a hint.
   */
  inert: boolean;
}

/** The rule of `field`, a field of an object type (of the query, mutation or subscription type: `ofRootType`). */
export function fieldCacheRule(field: GraphQLField<unknown, unknown>, ofRootType: boolean): FieldCacheRule {
  const target = getNamedType(field.type);
  const policy = new HintPolicy({});
  let inherits = false;
  if (isCompositeType(target)) {
    const annotation = typeAnnotation(target);
    policy.replace(annotation);
    inherits = annotation.inheritMaxAge === true;
  }
  const own = fieldAnnotation(field);
  if (own.inheritMaxAge === true && policy.maxAge === undefined) {
    inherits = true;
    if (own.scope !== undefined) policy.replace({ scope: own.scope });
  } else {
    policy.replace(own);
  }
  const initial = { maxAge: policy.maxAge, scope: policy.scope };
  const defaultsMaxAge = isCompositeType(target) && !inherits;
  const inert = !ofRootType && !defaultsMaxAge && !isRestricted(initial) && field.resolve === undefined;
  return { initial, defaultsMaxAge, inert };
}

/** A type's `@cacheControl`, on its definition or an extension; `{}` without one (Apollo's `cacheHintFromType`). */
export function typeAnnotation(type: GraphQLCompositeType): CacheAnnotation {
  for (const node of [type.astNode, ...type.extensionASTNodes]) {
    const annotation = annotationOf(node?.directives);
    if (annotation !== undefined) return annotation;
  }
  return {};
}

function fieldAnnotation(field: GraphQLField<unknown, unknown>): CacheAnnotation {
  return annotationOf(field.astNode?.directives) ?? {};
}

function annotationOf(directives: readonly ConstDirectiveNode[] | undefined): CacheAnnotation | undefined {
  const directive = directives?.find((candidate) => candidate.name.value === 'cacheControl');
  if (directive?.arguments === undefined) return undefined;
  const argument = (name: string) => directive.arguments?.find((candidate) => candidate.name.value === name)?.value;
  const scopeValue = argument('scope');
  const scopeName = scopeValue?.kind === Kind.ENUM ? scopeValue.value : undefined;
  const scope: CacheScope | undefined = scopeName === 'PUBLIC' || scopeName === 'PRIVATE' ? scopeName : undefined;
  const inherit = argument('inheritMaxAge');
  if (inherit?.kind === Kind.BOOLEAN && inherit.value) return { inheritMaxAge: true, scope };
  const maxAge = argument('maxAge');
  return { maxAge: maxAge?.kind === Kind.INT ? parseInt(maxAge.value, 10) : undefined, scope };
}
