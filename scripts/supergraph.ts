/**
 * `npm run supergraph`: composes schema/ with other subgraphs' SDL files into a
 * supergraph, offline: no running subgraph, no secret, no GraphOS. What rover
 * would do from `_service { sdl }`, but from the files, so it works while
 * CALLER_AUTH keeps introspection closed (docs/routers.md).
 *
 *   npm run supergraph -- [--for apollo-router|hive-gateway|apollo-gateway]
 *     [--url analytics=http://analytics:4001/graphql] [--out supergraph.graphql]
 *     cms=cms.graphql --url cms=http://cms:4002/graphql …
 *
 * `--for apollo-gateway` composes every subgraph without @authenticated,
 * @requiresScopes and @policy: the JavaScript gateway enforces none of them
 * and refuses a supergraph that links them. The subgraph still enforces its
 * scopes itself (with CALLER_AUTH including jwt).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { composeServices } from '@apollo/composition';
import { parse, type DocumentNode } from 'graphql';
import { withoutAuthorizationDirectives } from '../src/graphql/authorizationDirectives';
import { loadTypeDefs } from '../src/graphql/schema';

const TARGETS = ['apollo-router', 'hive-gateway', 'apollo-gateway'] as const;
type Target = (typeof TARGETS)[number];

/** The analytics subgraph's name in the supergraph, and where the router finds it unless `--url analytics=…` says otherwise. */
const ANALYTICS = { name: 'analytics', url: 'http://localhost:4001/graphql' };

interface Arguments {
  target: Target;
  out?: string;
  urls: Map<string, string>;
  /** Other subgraphs: name → SDL file. */
  files: Map<string, string>;
}

class UsageError extends Error {}

const USAGE =
  'usage: npm run supergraph -- [--for apollo-router|hive-gateway|apollo-gateway] [--out FILE] ' +
  '[--url analytics=URL] [NAME=SDL_FILE --url NAME=URL]...';

function parseArguments(argv: string[]): Arguments {
  const parsed: Arguments = { target: 'apollo-router', urls: new Map(), files: new Map() };
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i];
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined) throw new UsageError(`${argument} needs a value`);
      return next;
    };
    if (argument === '--for') {
      const target = value();
      if (!(TARGETS as readonly string[]).includes(target))
        throw new UsageError(`--for must be one of ${TARGETS.join(', ')} (got "${target}")`);
      parsed.target = target as Target;
    } else if (argument === '--out') {
      parsed.out = value();
    } else if (argument === '--url') {
      const [name, url] = pair(value(), '--url NAME=URL');
      parsed.urls.set(name, url);
    } else if (argument.startsWith('-')) {
      throw new UsageError(`unknown option ${argument}`);
    } else {
      const [name, file] = pair(argument, 'NAME=SDL_FILE');
      if (name === ANALYTICS.name)
        throw new UsageError(`"${ANALYTICS.name}" is this subgraph, composed from schema/: name the other subgraph differently`);
      parsed.files.set(name, file);
    }
  }
  for (const name of parsed.files.keys()) {
    if (!parsed.urls.has(name)) throw new UsageError(`no routing URL for subgraph "${name}": add --url ${name}=http://…`);
  }
  for (const name of parsed.urls.keys()) {
    if (name !== ANALYTICS.name && !parsed.files.has(name)) throw new UsageError(`--url names "${name}", which no NAME=SDL_FILE gives`);
  }
  return parsed;
}

function pair(text: string, shape: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0 || at === text.length - 1) throw new UsageError(`expected ${shape} (got "${text}")`);
  return [text.slice(0, at), text.slice(at + 1)];
}

function readSdl(name: string, file: string): DocumentNode {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the SDL of "${name}" (${file}): ${(error as Error).message}`);
  }
  try {
    return parse(text);
  } catch (error) {
    throw new UsageError(`the SDL of "${name}" (${file}) is not valid GraphQL: ${(error as Error).message}`);
  }
}

/** The supergraph SDL, or the composition errors. */
function composeSupergraphSdl(args: Arguments): { supergraphSdl: string } | { errors: string[] } {
  const forGateway = args.target === 'apollo-gateway';
  const subgraphs = [
    { name: ANALYTICS.name, url: args.urls.get(ANALYTICS.name) ?? ANALYTICS.url, typeDefs: loadTypeDefs() },
    ...[...args.files].map(([name, file]) => ({ name, url: args.urls.get(name) ?? '', typeDefs: readSdl(name, file) })),
  ].map((subgraph) => (forGateway ? { ...subgraph, typeDefs: withoutAuthorizationDirectives(subgraph.typeDefs) } : subgraph));
  const result = composeServices(subgraphs);
  if (result.errors) return { errors: result.errors.map((error) => error.message) };
  return { supergraphSdl: result.supergraphSdl };
}

function main(): number {
  let args: Arguments;
  try {
    args = parseArguments(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`supergraph: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  let result: ReturnType<typeof composeSupergraphSdl>;
  try {
    result = composeSupergraphSdl(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`supergraph: ${error.message}\n`);
    return 2;
  }
  if ('errors' in result) {
    process.stderr.write(`supergraph: composition failed:\n${result.errors.map((message) => `- ${message}`).join('\n')}\n`);
    return 1;
  }
  if (args.out === undefined) {
    process.stdout.write(result.supergraphSdl);
  } else {
    writeFileSync(args.out, result.supergraphSdl);
    const names = [ANALYTICS.name, ...args.files.keys()].join(', ');
    process.stderr.write(`supergraph: wrote ${args.out} (${names}; for ${args.target})\n`);
  }
  return 0;
}

process.exitCode = main();
