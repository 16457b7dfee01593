/**
 * The schema feeds frontend code generation: graphql-codegen's client preset
 * turns the operations in ./operations into TypedDocumentNodes, and a frontend
 * consumer type-checks against their result types.
 *
 * Which schema codegen reads: the subgraph SDL carries federation machinery
 * (`@link`, `@key`, `_entities`) that a frontend never sees, so we feed codegen
 * the supergraph's API schema — what the router serves. A frontend team does
 * the same by pointing codegen's `schema:` at the router's URL (its
 * introspection is the API schema) or at the API schema SDL that their
 * composition step prints. In local development, pointing it at this
 * subgraph's `/graphql` introspection works too: the extra `_entities` and
 * `_service` fields are valid GraphQL that a frontend simply never uses.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { generateFrontendClient } from '../support/frontendCodegen';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** A frontend module that uses the generated result and variable types. */
const CONSUMER = `
import type { ResultOf, VariablesOf } from '@graphql-typed-document-node/core';
import { ArticleRecommendationsDocument, TopArticlesDocument } from './gql/graphql';

type Recommendations = ResultOf<typeof ArticleRecommendationsDocument>;
type TopArticles = ResultOf<typeof TopArticlesDocument>;

export const variables: VariablesOf<typeof TopArticlesDocument> = {
  query: { dates: { last: { number: 7, unit: 'DAY' } }, groupBy: ['URL'], metrics: ['PAGE_VIEWS_TOTAL'] },
};

// Upstream-backed fields are nullable: a failed call is null plus an error, so consumers handle null.
export function firstPublishedAt(data: Recommendations): string | null {
  return data.recommendations?.[0].publishedAt ?? null;
}

export function firstDimension(data: TopArticles): string | undefined {
  return data.dashboard?.[0].rows[0].dimensions[0].dimension;
}

// When the answer left the recommender (it may have come from the subgraph's cache).
export function fetchedAt(data: Recommendations): string | undefined {
  return data.recommendations?.[0]?.fetchedAt;
}

export function relatedTitles(data: Recommendations): string[] {
  return (data.recommendations ?? []).flatMap((r) => (r.article.related ?? []).map((related) => related.title));
}
`;

/**
 * Each line marked `// error NNNN` must produce exactly that diagnostic, so the
 * check proves the generated types are precise, not `any`.
 */
const MISUSE = `
import type { ResultOf, VariablesOf } from '@graphql-typed-document-node/core';
import { ArticleRecommendationsDocument, TopArticlesDocument } from './gql/graphql';

type Recommendations = ResultOf<typeof ArticleRecommendationsDocument>;

export const listIsNullable = (data: Recommendations) => data.recommendations[0]; // error 18047
export const missingField = (data: Recommendations) => data.recommendations?.[0].nonexistent; // error 2339
export const imageIsNullable = (data: Recommendations): string => data.recommendations?.[0].img; // error 2322
export const unknownMetric: VariablesOf<typeof TopArticlesDocument> = {
  query: { dates: { last: { number: 7, unit: 'DAY' } }, metrics: ['PAGEVIEWS'] }, // error 2322
};
`;

interface LineDiagnostic {
  file: string;
  line: number;
  code: number;
}

interface Diagnostic extends LineDiagnostic {
  message: string;
}

function expectedDiagnostics(file: string, source: string): LineDiagnostic[] {
  return source.split('\n').flatMap((text, index) => {
    const match = /\/\/ error (\d+)$/.exec(text);
    return match ? [{ file, line: index + 1, code: Number(match[1]) }] : [];
  });
}

function typeCheck(rootFiles: string[]): Diagnostic[] {
  const program = ts.createProgram(rootFiles, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    skipLibCheck: true,
    // The temp dir has no node_modules: resolve packages from the repository's.
    paths: { '*': [path.join(REPO_ROOT, 'node_modules', '*')] },
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ({
    file: d.file ? path.basename(d.file.fileName) : '<global>',
    line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0,
    code: d.code,
    message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  }));
}

describe('frontend code generation from the API schema', () => {
  let workDir: string;
  let generatedFiles: string[];

  beforeAll(async () => {
    workDir = mkdtempSync(path.join(os.tmpdir(), 'frontend-codegen-'));
    const outputs = await generateFrontendClient(workDir);
    generatedFiles = outputs.map((filename) => path.relative(workDir, filename));
    writeFileSync(path.join(workDir, 'consumer.ts'), CONSUMER);
    writeFileSync(path.join(workDir, 'misuse.ts'), MISUSE);
  }, 20000);

  afterAll(() => {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('feeds codegen the API schema, without federation internals', () => {
    const sdl = readFileSync(path.join(workDir, 'schema.graphql'), 'utf8');
    expect(sdl).toMatch(/recommendations\(/);
    expect(sdl).toMatch(/dashboard\(/);
    expect(sdl).not.toMatch(/_entities|_service|@link|join__/);
  });

  it('generates typed documents for the operations', () => {
    expect(generatedFiles).toEqual(expect.arrayContaining([path.join('gql', 'graphql.ts'), path.join('gql', 'gql.ts')]));
    const graphqlTs = readFileSync(path.join(workDir, 'gql', 'graphql.ts'), 'utf8');
    expect(graphqlTs).toContain('export const ArticleRecommendationsDocument');
    expect(graphqlTs).toContain('export const TopArticlesDocument');
  });

  it('type-checks a consumer of the result types, and rejects misuse', () => {
    const diagnostics = typeCheck([path.join(workDir, 'consumer.ts'), path.join(workDir, 'misuse.ts')]);
    const elsewhere = diagnostics.filter((d) => d.file !== 'misuse.ts');
    expect(elsewhere.map((d) => `${d.file}:${d.line} TS${d.code} ${d.message}`)).toEqual([]);
    const inMisuse = diagnostics.filter((d) => d.file === 'misuse.ts').map(({ file, line, code }) => ({ file, line, code }));
    expect(inMisuse).toEqual(expectedDiagnostics('misuse.ts', MISUSE));
  });
});
