import { Kind, visit, type ConstDirectiveNode, type DocumentNode, type ValueNode } from 'graphql';

/**
 * Federation's authorization directives (federation 2.5+). `@apollo/gateway`
 * enforces none of them and, failing closed, refuses a supergraph that links
 * them; without them a subgraph's SDL composes into a supergraph it accepts.
 */
const AUTHORIZATION_DIRECTIVES = ['authenticated', 'requiresScopes', 'policy'] as const;

/**
 * The subgraph SDL without `@authenticated`, `@requiresScopes` and `@policy`:
 * their applications and their names in the federation `@link(import:)`
 * (plain, renamed with `as`, or `federation__`-prefixed). Everything else is
 * printed as it was. Used where the declarations must not travel (the JavaScript
 * gateway); the subgraph's own schema keeps them and keeps enforcing them.
 */
export function withoutAuthorizationDirectives(typeDefs: DocumentNode): DocumentNode {
  const local = authorizationNames(typeDefs);
  return visit(typeDefs, {
    Directive: (node) => (local.has(node.name.value) ? null : undefined),
    Argument: (node, _key, _parent, _path, ancestors) => {
      const directive = ancestors.at(-1);
      if (node.name.value !== 'import' || !isFederationLink(directive) || node.value.kind !== Kind.LIST) return undefined;
      return { ...node, value: { ...node.value, values: node.value.values.filter((value) => !isAuthorizationImport(value)) } };
    },
  });
}

/** The names the directives go by in this SDL: imported (with their `as`), and always `federation__<name>`. */
function authorizationNames(typeDefs: DocumentNode): Set<string> {
  const names = new Set<string>(AUTHORIZATION_DIRECTIVES.map((name) => `federation__${name}`));
  for (const definition of typeDefs.definitions) {
    if (definition.kind !== Kind.SCHEMA_DEFINITION && definition.kind !== Kind.SCHEMA_EXTENSION) continue;
    for (const directive of definition.directives ?? []) {
      if (!isFederationLink(directive)) continue;
      const imports = directive.arguments?.find((argument) => argument.name.value === 'import')?.value;
      if (imports?.kind !== Kind.LIST) continue;
      for (const value of imports.values) {
        const imported = importedName(value);
        if (imported !== undefined && isAuthorizationName(imported.name)) names.add(imported.as.replace(/^@/, ''));
      }
    }
  }
  return names;
}

function isFederationLink(node: unknown): node is ConstDirectiveNode {
  if (typeof node !== 'object' || node === null || (node as { kind?: unknown }).kind !== Kind.DIRECTIVE) return false;
  const directive = node as ConstDirectiveNode;
  const url = directive.arguments?.find((argument) => argument.name.value === 'url')?.value;
  return directive.name.value === 'link' && url?.kind === Kind.STRING && /\/federation\/v[\d.]+$/.test(url.value);
}

function isAuthorizationImport(value: ValueNode): boolean {
  const imported = importedName(value);
  return imported !== undefined && isAuthorizationName(imported.name);
}

function isAuthorizationName(name: string): boolean {
  return (AUTHORIZATION_DIRECTIVES as readonly string[]).includes(name.replace(/^@/, ''));
}

/** An `import:` entry: `"@name"`, or `{ name: "@name", as: "@other" }`. */
function importedName(value: ValueNode): { name: string; as: string } | undefined {
  if (value.kind === Kind.STRING) return { name: value.value, as: value.value };
  if (value.kind !== Kind.OBJECT) return undefined;
  const field = (name: string) => value.fields.find((candidate) => candidate.name.value === name)?.value;
  const name = field('name');
  if (name?.kind !== Kind.STRING) return undefined;
  const as = field('as');
  return { name: name.value, as: as?.kind === Kind.STRING ? as.value : name.value };
}
