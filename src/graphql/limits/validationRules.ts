import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import type { GraphQLArmorRejectCallback } from '@escape.tech/graphql-armor-types';
import { GraphQLError, type ValidationRule } from 'graphql';
import { LimitCode } from './codes';

export interface StaticLimits {
  maxDepth: number;
  maxAliases: number;
  maxDirectives: number;
}

/**
 * GraphQL Armor's depth, alias and directive rules, each reporting its own
 * code. They are validation rules, so they run before execution (no upstream
 * call) and their verdict is cached with the document. We use the rules
 * rather than `ApolloArmor().protect()` because that reports every limit as
 * BAD_USER_INPUT and also turns off things we configure ourselves.
 */
export function limitValidationRules(limits: StaticLimits): ValidationRule[] {
  return [
    maxDepthRule({ n: limits.maxDepth, flattenFragments: true, ...reportAs(LimitCode.MAX_DEPTH_LIMIT) }),
    maxAliasesRule({ n: limits.maxAliases, ...reportAs(LimitCode.MAX_ALIASES_LIMIT) }),
    maxDirectivesRule({ n: limits.maxDirectives, ...reportAs(LimitCode.MAX_DIRECTIVES_LIMIT) }),
  ];
}

/** Report into the validation context (a 400 with our code) instead of throwing (a 500 in Apollo). */
function reportAs(code: LimitCode): { propagateOnRejection: false; onReject: GraphQLArmorRejectCallback[] } {
  return {
    propagateOnRejection: false,
    onReject: [(context, error) => context?.reportError(new GraphQLError(withoutSyntaxPrefix(error.message), { extensions: { code } }))],
  };
}

/** Armor words its messages "Syntax Error: ..." although the document parsed fine. */
function withoutSyntaxPrefix(message: string): string {
  return message.replace(/^Syntax Error: /, '');
}
