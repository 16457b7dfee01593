/**
 * Every relative link in the project's Markdown resolves: the file exists and,
 * for a `#fragment` into Markdown, the heading does (GitHub's anchor rules).
 * The README is a newcomer's page that points into docs/; a moved section
 * must not leave a dead link behind.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
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

describe('Markdown links', () => {
  const files = markdownFiles();

  it('finds the README and the docs pages', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/configuration.md', 'src/README.md']));
  });

  it.each(files)('%s has no dead relative link', (file) => {
    expect(deadLinks(file)).toEqual([]);
  });

  it('keeps the README a newcomer page (at most 400 lines)', () => {
    const lines = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(400);
  });
});

describe('anchorsOf', () => {
  it('follows GitHub: punctuation dropped, spaces to hyphens, repeats numbered', () => {
    const text = '# Schema evolution (schema:check, schema:publish)\n## Metrics\n## Metrics\n```\n# not a heading\n```\n';
    expect([...anchorsOf(text)]).toEqual(['schema-evolution-schemacheck-schemapublish', 'metrics', 'metrics-1']);
  });
});
