/**
 * The TypeScript snippets of the docs compile against the installed packages:
 * every ```ts or ```tsx block right after a `<!-- checked -->` line in README.md or
 * docs/*.md is written to a file in a directory inside the repository (so
 * node_modules resolve as in a frontend's project), beside the client a
 * frontend generates from the schema (`./gql/graphql`, test/support/frontendCodegen.ts),
 * and type-checked with the TypeScript compiler as a strict frontend would.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { generateFrontendClient } from '../support/frontendCodegen';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
/** Git-ignored. */
const WORK_PARENT = path.join(REPO_ROOT, 'test-output');

interface Snippet {
  page: string;
  /** `ts`, or `tsx` for a block with JSX (compiled as React 19's automatic runtime). */
  language: 'ts' | 'tsx';
  /** The page's line of the block's first line of code (1-based). */
  line: number;
  source: string;
}

const CHECKED_BLOCK = /^<!-- checked -->\n```(tsx?)\n([\s\S]*?)^```$/gm;

/** The checked ```ts and ```tsx blocks of one markdown file. */
export function checkedSnippets(relativePath: string, markdown: string): Snippet[] {
  return [...markdown.matchAll(CHECKED_BLOCK)].map((match) => {
    const line = markdown.slice(0, match.index).split('\n').length + 2;
    return { page: relativePath, language: match[1] as Snippet['language'], line, source: match[2] };
  });
}

function docsPages(): string[] {
  const docs = readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name));
  return ['README.md', ...docs];
}

function typeCheck(rootFiles: string[]): ts.Diagnostic[] {
  const program = ts.createProgram(rootFiles, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    // What a frontend's bundler (Vite, webpack) resolves: package exports, ES modules.
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    types: [],
    jsx: ts.JsxEmit.ReactJSX,
  });
  return [...ts.getPreEmitDiagnostics(program)];
}

describe('the checked TypeScript snippets of the docs', () => {
  const snippets = docsPages().flatMap((page) => checkedSnippets(page, readFileSync(path.join(REPO_ROOT, page), 'utf8')));
  let workDir: string;
  let files: Map<string, Snippet>;

  beforeAll(async () => {
    mkdirSync(WORK_PARENT, { recursive: true });
    workDir = mkdtempSync(path.join(WORK_PARENT, 'docs-snippets-'));
    await generateFrontendClient(workDir);
    files = new Map(
      snippets.map((snippet, index) => {
        const file = path.join(workDir, `snippet${index + 1}.${snippet.language}`);
        writeFileSync(file, snippet.source);
        return [file, snippet];
      }),
    );
  }, 30_000);

  afterAll(() => {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('include the typed-frontend example of docs/schema.md', () => {
    expect(snippets.find((s) => s.page === 'docs/schema.md')?.source).toMatch(/useQuery/);
  });

  it('include the Apollo Client 4 subscription component of docs/subscriptions.md, as TSX', () => {
    const client = snippets.find((s) => s.page === 'docs/subscriptions.md' && s.language === 'tsx');
    expect(client?.source).toMatch(/useSubscription/);
    expect(client?.source).toMatch(/connectionParams: async \(\) =>/);
    expect(client?.source).toMatch(/shouldRetry/);
  });

  it('compile against the installed packages and the generated client', () => {
    const problems = typeCheck([...files.keys()]).map((diagnostic) => {
      const snippet = diagnostic.file && files.get(diagnostic.file.fileName);
      const where =
        snippet && diagnostic.start !== undefined
          ? `${snippet.page}:${snippet.line + diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start).line}`
          : (diagnostic.file?.fileName ?? '<global>');
      return `${where}: TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
    expect(problems).toEqual([]);
  });
});

describe('checkedSnippets', () => {
  it('takes only ts blocks right after the marker, with the line the code starts on', () => {
    const markdown = ['# Page', '<!-- checked -->', '```ts', 'const a = 1;', '```', '', '```ts', 'unchecked', '```', ''].join('\n');
    expect(checkedSnippets('docs/x.md', markdown)).toEqual([{ page: 'docs/x.md', language: 'ts', line: 4, source: 'const a = 1;\n' }]);
  });

  it('takes tsx blocks too', () => {
    const markdown = ['<!-- checked -->', '```tsx', 'const b = <p />;', '```', ''].join('\n');
    expect(checkedSnippets('docs/x.md', markdown)).toEqual([{ page: 'docs/x.md', language: 'tsx', line: 3, source: 'const b = <p />;\n' }]);
  });
});
