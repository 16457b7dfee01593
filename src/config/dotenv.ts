/**
 * `.env` in the working directory, read with Node's own parser
 * (util.parseEnv, the parser of process.loadEnvFile, Node ≥ 20.12): no
 * dependency. Its lines are checked first (dotenvLines.ts): a line the parser
 * would skip or cut is a start-up error naming the file and the line, never a
 * silent default. A variable already in the environment wins, even when
 * empty, as with loadEnvFile (test/web/dotenv.test.ts). Only the entry points
 * call this, before anything reads the environment.
 */
import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { scanDotEnvLines } from './dotenvLines';

export interface DotEnvOrigin {
  path: string;
  /** 1-based. */
  line: number;
}

/** Where each variable `.env` set came from, so a configuration problem can say so. Process-wide, as the environment is. */
const origins = new Map<string, DotEnvOrigin>();

export function loadDotEnv(path = '.env'): boolean {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new Error(`could not read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const { definitions, problems } = scanDotEnvLines(content);
  if (problems.length > 0) {
    const lines = problems.map((problem) => `  - ${path} line ${problem.line}: ${problem.text}`);
    throw new Error([`${path} cannot be read as NAME=value lines:`, ...lines].join('\n'));
  }
  for (const [name, value] of Object.entries(parseEnv(content))) {
    if (process.env[name] !== undefined) continue;
    process.env[name] = value;
    const line = definitions.get(name);
    if (line !== undefined) origins.set(name, { path, line });
  }
  return true;
}

/** The `.env` line a variable was set from, or undefined when the environment (or nothing) set it. */
export function dotEnvOrigin(name: string): DotEnvOrigin | undefined {
  return origins.get(name);
}

/** A configuration problem, followed by the `.env` line of each variable it names that `.env` set. */
export function withDotEnvOrigins(problem: string): string {
  const named = [...origins].filter(([name]) => new RegExp(`(^|[^A-Za-z0-9_])${name}($|[^A-Za-z0-9_])`).test(problem));
  return named.reduce((text, [name, origin]) => `${text}; ${name} is set in ${origin.path} line ${origin.line}`, problem);
}
