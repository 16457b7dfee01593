import { buildSubgraphSchema, printSubgraphSchema } from '@apollo/subgraph';
import { ChangeType, CriticalityLevel, diff, type Change, type Rule } from '@graphql-inspector/core';
import { parse, type DocumentNode, type GraphQLSchema } from 'graphql';

/** The published schema is the subgraph's SDL as the router and frontends see it (directives included). */
export function subgraphSdl(typeDefs: DocumentNode): string {
  return printSubgraphSchema(buildSubgraphSchema({ typeDefs })) + '\n';
}

function subgraphSchema(sdl: string): GraphQLSchema {
  return buildSubgraphSchema({ typeDefs: parse(sdl) });
}

export interface SchemaComparison {
  /** Would break a frontend's generated client or the supergraph's composition: the check fails on any. */
  breaking: Change[];
  /** May change what existing clients see (e.g. a new enum value): printed, never fatal. */
  dangerous: Change[];
  safe: Change[];
}

/**
 * graphql-inspector counts `img: String` → `img: String!` as safe (a client
 * expecting null copes with never getting one). Here it is breaking: every
 * upstream-backed field is nullable so a failed call is null plus an error at
 * its path; made non-null, the error would null the parent instead and take
 * the rest of the operation with it (docs/schema.md, "Public schema": never tighten
 * nullability).
 */
const nullabilityTighteningIsBreaking: Rule = ({ changes }) =>
  changes.map((change) => {
    if (change.type !== ChangeType.FieldTypeChanged) return change;
    const { oldFieldType, newFieldType } = change.meta as { oldFieldType: string; newFieldType: string };
    const sameTypeMoreNonNull =
      oldFieldType.replaceAll('!', '') === newFieldType.replaceAll('!', '') &&
      newFieldType.split('!').length > oldFieldType.split('!').length;
    if (!sameTypeMoreNonNull) return change;
    return {
      ...change,
      criticality: { level: CriticalityLevel.Breaking, reason: 'Tightening nullability moves a failed field’s null to its parent.' },
    };
  });

/**
 * A federation directive the schema starts to import by its short name
 * (`@link(import: ["@requiresScopes"])`) is printed as `@requiresScopes`
 * instead of `@federation__requiresScopes`: the same directive of the same
 * spec, which composition reads either way and no client sees. Not a removal.
 */
const federationImportIsSafe: Rule = ({ changes, newSchema }) =>
  changes.map((change) => {
    if (change.type !== ChangeType.DirectiveRemoved) return change;
    const { removedDirectiveName } = change.meta as { removedDirectiveName: string };
    const shortName = removedDirectiveName.startsWith('federation__') ? removedDirectiveName.slice('federation__'.length) : undefined;
    if (shortName === undefined || newSchema?.getDirective(shortName) == null) return change;
    return {
      ...change,
      criticality: {
        level: CriticalityLevel.NonBreaking,
        reason: `Imported by its short name @${shortName}: the same federation directive.`,
      },
    };
  });

/** Compares the published SDL with the current one; each change is classified by graphql-inspector (plus the rules above). */
export async function compareSchemas(publishedSdl: string, currentSdl: string): Promise<SchemaComparison> {
  const changes = await diff(subgraphSchema(publishedSdl), subgraphSchema(currentSdl), [
    nullabilityTighteningIsBreaking,
    federationImportIsSafe,
  ]);
  const at = (level: CriticalityLevel) => changes.filter((change) => change.criticality.level === level);
  return { breaking: at(CriticalityLevel.Breaking), dangerous: at(CriticalityLevel.Dangerous), safe: at(CriticalityLevel.NonBreaking) };
}

/** One line per change: its path and graphql-inspector's message. */
export function describeChange(change: Change): string {
  return `${change.path ?? '(schema)'}: ${change.message}`;
}
