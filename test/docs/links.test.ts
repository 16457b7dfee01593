/**
 * Every relative link in the project's Markdown resolves: the file exists and,
 * for a `#fragment` into Markdown, the heading does (GitHub's anchor rules).
 * The README is a newcomer's page that points into docs/; a moved section
 * must not leave a dead link behind. Nor a moved file: every repository path
 * the README, docs/ and the src/ READMEs name in backticks exists.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

function markdownFiles(): string[] {
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  return tracked
    .split('\n')
    .filter((file) => file.endsWith('.md') && existsSync(path.join(REPO_ROOT, file)))
    .sort();
}

/** Markdown outside fenced code blocks, where `[x](y)` is a link and `#` a heading. */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.trimStart().startsWith('```')) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

function relativeLinks(text: string): string[] {
  const links: string[] = [];
  for (const line of proseLines(text)) {
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push(target);
    }
  }
  return links;
}

function deadLinks(file: string): string[] {
  const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
  const dead: string[] = [];
  for (const link of relativeLinks(text)) {
    const [target = '', fragment] = link.split('#', 2);
    const resolved = target === '' ? path.join(REPO_ROOT, file) : path.resolve(path.dirname(path.join(REPO_ROOT, file)), target);
    if (!existsSync(resolved)) {
      dead.push(`${link} (no such file)`);
      continue;
    }
    if (fragment !== undefined && resolved.endsWith('.md') && statSync(resolved).isFile()) {
      if (!anchorsOf(readFileSync(resolved, 'utf8')).has(fragment)) dead.push(`${link} (no such heading)`);
    }
  }
  return dead;
}

/** The pages whose backticked paths must exist: the newcomer's page, the reference and the rooms' guides. */
function pagesNamingPaths(files: readonly string[]): string[] {
  return files.filter(
    (file) => file === 'README.md' || file.startsWith('docs/') || (file.startsWith('src/') && file.endsWith('/README.md')),
  );
}

const FILE_NAME = /^[\w.-]+\.(?:ts|mts|mjs|js|md|graphql|json|ya?ml|sh)$/;
const PATH = /^(?:\.{1,2}\/)*[\w.*-]+(?:\/[\w.*-]+)*\/?$/;

/**
 * A backticked span that names a repository path, and how it is checked:
 * - with a slash, when its first segment is an entry of the repository's root
 *   or of the page's folder (`src/upstream/pipeline.ts`, `stages/retry.ts`, `../x`):
 *   the path exists from the root or from the page's folder (a `*` matches
 *   within one segment);
 * - a bare source file name (`lease.ts`): a tracked file of that name exists.
 * Other slashed words (`application/json`, `bin/node` inside an image) are not
 * repository paths; nor is what git ignores (`dist/`, build output).
 */
type NamedPath = { kind: 'path'; text: string } | { kind: 'file name'; text: string };

export function namedPaths(text: string, pageFolder: string, rootEntries: ReadonlySet<string>): NamedPath[] {
  const named: NamedPath[] = [];
  for (const line of proseLines(text)) {
    for (const match of line.matchAll(/`([^`\s]+)`/g)) {
      const span = match[1]!;
      if (!PATH.test(span)) continue;
      if (span.includes('/')) {
        const first = span.split('/')[0]!;
        const relative = first === '.' || first === '..' || existsSync(path.join(REPO_ROOT, pageFolder, first));
        if (rootEntries.has(first) || relative) named.push({ kind: 'path', text: span });
      } else if (FILE_NAME.test(span) && /\.(?:ts|mts|graphql)$/.test(span)) {
        named.push({ kind: 'file name', text: span });
      }
    }
  }
  return named;
}

/** Whether a path (segments may hold `*`) exists below `base`. */
function pathExists(base: string, relativePath: string): boolean {
  let current = [base];
  for (const segment of relativePath.replace(/\/$/, '').split('/')) {
    if (!segment.includes('*')) {
      current = current.map((folder) => path.join(folder, segment)).filter((candidate) => existsSync(candidate));
      continue;
    }
    const pattern = new RegExp(`^${segment.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
    current = current.flatMap((folder) =>
      existsSync(folder) && statSync(folder).isDirectory()
        ? readdirSync(folder)
            .filter((entry) => pattern.test(entry))
            .map((entry) => path.join(folder, entry))
        : [],
    );
  }
  return current.length > 0;
}

function gitIgnores(relativePath: string): boolean {
  try {
    execFileSync('git', ['check-ignore', '-q', '--no-index', relativePath], { cwd: REPO_ROOT });
    return true;
  } catch {
    return false;
  }
}

function missingPaths(file: string, trackedNames: ReadonlySet<string>, rootEntries: ReadonlySet<string>): string[] {
  const folder = path.dirname(file);
  const named = namedPaths(readFileSync(path.join(REPO_ROOT, file), 'utf8'), folder, rootEntries);
  const missing = named.filter(({ kind, text }) => {
    if (kind === 'file name') return !trackedNames.has(text);
    if (pathExists(REPO_ROOT, text) || pathExists(path.join(REPO_ROOT, folder), text)) return false;
    return !gitIgnores(text);
  });
  return [...new Set(missing.map(({ text }) => text))];
}

function trackedFileNames(): Set<string> {
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT, encoding: 'utf8' });
  return new Set(
    tracked
      .split('\n')
      .filter((file) => file !== '' && existsSync(path.join(REPO_ROOT, file)))
      .map((file) => path.basename(file)),
  );
}

describe('Markdown links', () => {
  const files = markdownFiles();

  it('finds the README and the docs pages', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/configuration.md', 'src/README.md']));
  });

  it.each(files)('%s has no dead relative link', (file) => {
    expect(deadLinks(file)).toEqual([]);
  });

  describe('backticked repository paths', () => {
    const trackedNames = trackedFileNames();
    const rootEntries = new Set(readdirSync(REPO_ROOT));

    it.each(pagesNamingPaths(files))('%s names only paths that exist', (file) => {
      expect(missingPaths(file, trackedNames, rootEntries)).toEqual([]);
    });
  });

  it('keeps the README a newcomer page (at most 400 lines)', () => {
    const lines = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(400);
  });
});

describe('namedPaths', () => {
  const rootEntries = new Set(['src', 'docs', 'README.md']);

  it('takes slashed paths that start at the root or beside the page, and bare source file names', () => {
    const text = [
      'See `src/upstream/pipeline.ts`, `stages/retry.ts` and `lease.ts`; the output goes to `dist/`.',
      'Not paths: `application/json`, `bin/node`, `GET /health/ready`, `render.json`, `x`.',
      '```',
      '`src/in/a/fence.ts`',
      '```',
    ].join('\n');
    expect(namedPaths(text, 'src/upstream', new Set([...rootEntries, 'dist']))).toEqual([
      { kind: 'path', text: 'src/upstream/pipeline.ts' },
      { kind: 'path', text: 'stages/retry.ts' },
      { kind: 'file name', text: 'lease.ts' },
      { kind: 'path', text: 'dist/' },
    ]);
  });

  it('finds a path that does not exist (the check can fail)', () => {
    expect(pathExists(REPO_ROOT, 'src/upstream/no-such-file.ts')).toBe(false);
    expect(pathExists(REPO_ROOT, 'schema/*.graphql')).toBe(true);
    expect(gitIgnores('dist/')).toBe(true);
    expect(gitIgnores('src/')).toBe(false);
  });
});

describe('anchorsOf', () => {
  it('follows GitHub: punctuation dropped, spaces to hyphens, repeats numbered', () => {
    const text = '# Schema evolution (schema:check, schema:publish)\n## Metrics\n## Metrics\n```\n# not a heading\n```\n';
    expect([...anchorsOf(text)]).toEqual(['schema-evolution-schemacheck-schemapublish', 'metrics', 'metrics-1']);
  });
});
