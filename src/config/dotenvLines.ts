/**
 * The lines of a `.env` file, checked before Node's parser (util.parseEnv)
 * reads them: that parser skips what it cannot read without a word, so a
 * line without `=` (`PORT 4555`) was ignored, or even swallowed the next
 * line's name, and an unquoted `#` silently cut a value
 * (`REPORTING_PASSWORD=abc#def` signed in with `abc`). Here every such line is
 * a problem with its line number, and values are never echoed (they may be
 * secrets).
 */

export interface DotEnvLineProblem {
  /** 1-based. */
  line: number;
  text: string;
}

export interface DotEnvLines {
  /** The line each variable is defined on (the last definition, as the parser keeps the last value). */
  definitions: Map<string, number>;
  problems: DotEnvLineProblem[];
}

const ASSIGNMENT = /^\s*(?:export\s+)?([^=]*?)\s*=(.*)$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const QUOTES = new Set(['"', "'", '`']);

/**
 * The parser cuts an unquoted value at its first `#`. After whitespace that is
 * a comment, as intended; right after `=` or another character it cuts the value.
 */
function hasCuttingHash(textAfterEquals: string): boolean {
  const hash = textAfterEquals.indexOf('#');
  return hash === 0 || (hash > 0 && !/\s/.test(textAfterEquals[hash - 1]));
}

function cutAtHashProblem(name: string): string {
  return `${name}: an unquoted value is cut at "#" (the rest would be read as a comment); quote the value (${name}="…") or put a space before the "#" of a comment`;
}

export function scanDotEnvLines(content: string): DotEnvLines {
  const lines = content.replaceAll('\r\n', '\n').split('\n');
  const definitions = new Map<string, number>();
  const problems: DotEnvLineProblem[] = [];
  let index = 0;
  while (index < lines.length) {
    const lineNumber = index + 1;
    const line = lines[index];
    index++;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;

    const assignment = ASSIGNMENT.exec(line);
    if (!assignment) {
      // Named only when it looks like a variable: a stray line may be a pasted secret.
      const firstWord = /^[A-Z][A-Z0-9_]*(?=\s|$)/.exec(trimmed)?.[0] ?? 'NAME';
      problems.push({ line: lineNumber, text: `no "=" (write ${firstWord}=value; a line without "=" is not read)` });
      continue;
    }
    const [, name, rawValue] = assignment;
    if (!NAME.test(name)) {
      // Not echoed: the text of a broken line may be a secret.
      problems.push({
        line: lineNumber,
        text: 'the text before "=" is not a variable name (letters, digits and _, not starting with a digit)',
      });
      continue;
    }
    const value = rawValue.trimStart();
    const quote = value[0];
    if (quote !== undefined && QUOTES.has(quote)) {
      // A quoted value may go on over the next lines, up to its closing quote.
      let rest = value.slice(1);
      let closingLine = index - 1;
      while (!rest.includes(quote) && closingLine + 1 < lines.length) {
        closingLine++;
        rest = lines[closingLine];
      }
      if (!rest.includes(quote)) {
        problems.push({ line: lineNumber, text: `${name}: the value opens a ${quote} quote that is never closed` });
        continue;
      }
      index = closingLine + 1;
    } else if (hasCuttingHash(rawValue)) {
      problems.push({ line: lineNumber, text: cutAtHashProblem(name) });
      continue;
    }
    definitions.set(name, lineNumber);
  }
  return { definitions, problems };
}
