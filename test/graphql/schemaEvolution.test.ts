/**
 * `npm run schema:check`'s verdicts (src/graphql/schemaEvolution/compare.ts): each
 * kind of breaking change fails, naming the field; additions pass.
 */
import { parse, print } from 'graphql';
import { loadTypeDefs } from '../../src/graphql/schema';
import { compareSchemas, describeChange, subgraphSdl } from '../../src/graphql/schemaEvolution/compare';

const currentSource = print(loadTypeDefs());
const published = subgraphSdl(loadTypeDefs());

/** The current schema with one edit; the edit must apply exactly once, so a schema change cannot silently void a test. */
function edited(search: string | RegExp, replacement: string): string {
  const count = currentSource.split(search).length - 1;
  if (count !== 1) throw new Error(`expected one match of ${String(search)} in the schema, found ${count}`);
  return currentSource.replace(search, replacement);
}

async function breakingChanges(source: string): Promise<string[]> {
  return (await compareSchemas(published, subgraphSdl(parse(source)))).breaking.map(describeChange);
}

describe('schema check against the published schema', () => {
  it('passes the schema as published', async () => {
    const comparison = await compareSchemas(published, published);
    expect(comparison.breaking).toEqual([]);
    expect(comparison.dangerous).toEqual([]);
  });

  it('passes federation directives starting to be imported by their short names (@requiresScopes, was @federation__requiresScopes)', async () => {
    // The schema as published before: neither directive imported nor used.
    const before = currentSource
      .replace(', "@authenticated", "@requiresScopes"', '')
      .replace(/\s*@requiresScopes\(scopes: \[\["[a-z:]+"\]\]\)/g, '');
    expect(before).not.toContain('requiresScopes(');
    const comparison = await compareSchemas(subgraphSdl(parse(before)), published);
    expect(comparison.breaking.map(describeChange)).toEqual([]);
    expect(comparison.safe.map(describeChange)).toContain(
      "@federation__requiresScopes: Directive 'federation__requiresScopes' was removed",
    );
  });

  it('fails a removed field, naming it', async () => {
    expect(await breakingChanges(edited(/\n\s*"URL of the article's picture, when it has one."\n\s*img: String\n/, '\n'))).toEqual([
      expect.stringMatching(/^Recommendation\.img: .*removed/),
    ]);
  });

  it('fails a changed field type', async () => {
    expect(await breakingChanges(edited('position: Int!', 'position: String!'))).toEqual([
      expect.stringMatching(/^Recommendation\.position: /),
    ]);
  });

  it('fails a tightened nullability, on an output field and on an input field', async () => {
    expect(await breakingChanges(edited('img: String\n', 'img: String!\n'))).toEqual([expect.stringMatching(/^Recommendation\.img: /)]);
    expect(await breakingChanges(edited('granularity: Granularity\n', 'granularity: Granularity!\n'))).toEqual([
      expect.stringMatching(/^DashboardQueryInput\.granularity: /),
    ]);
  });

  it('fails a new required argument', async () => {
    expect(await breakingChanges(edited('related(', 'related(\n    "New."\n    slot: Int!\n'))).toEqual([
      expect.stringMatching(/^Article\.related\.slot: .*added/),
    ]);
  });

  it('passes an added field and an added optional argument', async () => {
    const source = edited('related(', 'related(\n    "New."\n    slot: Int\n').replace(
      /type ArticleRanking [^{]*\{/,
      '$&\n  "New."\n  previousRank: Int\n',
    );
    const comparison = await compareSchemas(published, subgraphSdl(parse(source)));
    expect(comparison.breaking).toEqual([]);
    expect(comparison.safe.map(describeChange)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^ArticleRanking\.previousRank: .*added/)]),
    );
    // graphql-inspector calls a new optional argument dangerous (it can change a field's default behaviour): printed, not fatal.
    expect(comparison.dangerous.map(describeChange)).toEqual([expect.stringMatching(/^Article\.related\.slot: .*added/)]);
  });
});
