/**
 * The subgraph's one reader of environment variables (src/config/): the
 * contract's value reader (contract/emulatorEnv.ts: integers, decimals,
 * choices, read alike by both programs) plus what only the subgraph reads
 * (booleans, patterns, URLs, secrets from `*_FILE`).
 *
 * Every method returns `undefined` for an unset variable and for an unusable
 * one; an unusable one also adds a problem naming the variable, so that one
 * start-up failure lists every problem instead of revealing them one restart
 * at a time. Callers apply their defaults with `??`.
 */
import { readFileSync } from 'node:fs';
import { EmulatorEnv } from '../../contract/emulatorEnv';

/** How a `*_FILE` variable's file is read; tests may replace it. */
export type ReadSecretFile = (path: string) => string;

const readUtf8 = (path: string): string => readFileSync(path, 'utf8');

export class EnvReader extends EmulatorEnv {
  constructor(
    env: NodeJS.ProcessEnv,
    private readonly readSecretFile: ReadSecretFile = readUtf8,
  ) {
    super(env);
  }

  /** An empty value counts as unset: `VAR=` is how container tooling usually "unsets" a variable. */
  isSet(name: string): boolean {
    const value = this.env[name];
    return value !== undefined && value !== '';
  }

  /** Adds a problem that is not about one value's syntax (e.g. two variables that contradict each other). */
  problem(text: string): void {
    this.problems.push(text);
  }

  /** `true`/`1` or `false`/`0`, in any case. */
  boolean(name: string): boolean | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    const value = raw.trim().toLowerCase();
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    this.problems.push(`${name} must be true or false (got ${JSON.stringify(raw)})`);
    return undefined;
  }

  /** The value if it matches `pattern`; `expected` says what was expected, e.g. "1 to 100 letters". */
  matching(name: string, pattern: RegExp, expected: string): string | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    if (pattern.test(raw)) return raw;
    this.problems.push(`${name} must be ${expected} (got ${JSON.stringify(raw)})`);
    return undefined;
  }

  /** An absolute http(s) URL without credentials, returned as given. */
  httpUrl(name: string): string | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    const url = parseUrl(raw);
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      // A value with userinfo might carry a password: name the variable, not the value.
      const shown = raw.includes('@') ? '' : ` (got ${JSON.stringify(raw)})`;
      this.problems.push(`${name} must be an absolute http(s) URL${shown}`);
      return undefined;
    }
    if (url.username !== '' || url.password !== '') {
      this.problems.push(`${name} must not contain credentials; use REPORTING_EMAIL and REPORTING_PASSWORD`);
      return undefined;
    }
    return raw;
  }

  /**
   * `value` (read from `name`) if it is a URL with one of `protocols` (e.g.
   * `['redis:', 'rediss:']`) and a host. Never echoed: such URLs may carry a password; `expected` says what was expected instead.
   */
  secretUrl(name: string, value: string, protocols: readonly string[], expected: string): string | undefined {
    const url = parseUrl(value);
    if (url === undefined || !protocols.includes(url.protocol) || url.hostname === '') {
      this.problems.push(`${name} must be ${expected}`);
      return undefined;
    }
    return value;
  }

  /**
   * `NAME`, or the content of the file `NAME_FILE` names (how Kubernetes and
   * Docker hand out secrets), read once, with its trailing newline removed.
   * Neither the value nor the file's content is ever put in a problem; the
   * path is, so an operator can find the file.
   */
  valueOrFile(name: string): string | undefined {
    const fileVariable = `${name}_FILE`;
    const path = this.raw(fileVariable);
    if (path === undefined) return this.raw(name);
    if (this.isSet(name)) {
      this.problems.push(`${name} and ${fileVariable} are both set: set only one of them`);
      return undefined;
    }
    let content: string;
    try {
      content = this.readSecretFile(path);
    } catch (error) {
      this.problems.push(`${fileVariable} names a file that cannot be read: ${path} (${errorCode(error)})`);
      return undefined;
    }
    const value = content.replace(/(\r?\n)+$/, '');
    if (value === '') {
      this.problems.push(`${fileVariable} names an empty file: ${path}`);
      return undefined;
    }
    return value;
  }

  /** Whether `NAME` or `NAME_FILE` is set. */
  isSetOrFile(name: string): boolean {
    return this.isSet(name) || this.isSet(`${name}_FILE`);
  }
}

function parseUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/** The system error code (ENOENT, EACCES, EISDIR, ...): never the message, which might quote the file. */
function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unreadable';
}
