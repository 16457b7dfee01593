import path from 'node:path';
import {
  GraphQLEnumType,
  GraphQLError,
  isEnumType,
  isInputObjectType,
  isObjectType,
  Kind,
  parse,
  printSchema,
  type GraphQLSchema,
} from 'graphql';
import { resolvers } from '../../src/graphql/resolvers';
import { DateTimeScalar } from '../../src/graphql/scalars/dateTime';
import { checkedUpstreamTimeToIso, parseIsoInstant, upstreamTimeToIso } from '../../src/kernel/instants';
import { loadTypeDefs, SCHEMA_DIR, schemaDirFor } from '../../src/graphql/schema';
import { buildSchema } from '../../src/graphql/subgraphSchema';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

function subgraphSchema(): GraphQLSchema {
  return buildSchema();
}

describe('enum defaults', () => {
  it('hold the upstream names the enums map to, so the schema prints (introspection) and resolvers get upstream names', () => {
    const schema = subgraphSchema();
    const topArticles = schema.getQueryType()?.getFields().topArticles;

    expect(topArticles?.args.find((arg) => arg.name === 'metric')?.defaultValue).toBe('pageViewsTotal');
    expect(topArticles?.args.find((arg) => arg.name === 'window')?.defaultValue).toEqual({ last: { number: 1, unit: 'day' } });
    expect(printSchema(schema)).toContain('metric: Metric = PAGE_VIEWS_TOTAL');
  });
});

describe('schema files', () => {
  it('are found from the module location, under src/ and under dist/src/', () => {
    expect(SCHEMA_DIR).toBe(path.join(REPO_ROOT, 'schema'));
    expect(schemaDirFor(path.join('/app', 'src'))).toBe(path.join('/app', 'schema'));
    expect(schemaDirFor(path.join('/app', 'dist', 'src'))).toBe(path.join('/app', 'schema'));
  });

  it('describe every type, field, argument, input field and enum value', () => {
    const schema = subgraphSchema();
    const ours = new Set(
      loadTypeDefs().definitions.flatMap((definition) =>
        // Directive definitions (@cacheControl) are not types; their arguments are described with the directive.
        definition.kind !== Kind.DIRECTIVE_DEFINITION && 'name' in definition && definition.name ? [definition.name.value] : [],
      ),
    );
    const undescribed: string[] = [];
    const check = (coordinate: string, description: string | null | undefined) => {
      if (!description?.trim()) undescribed.push(coordinate);
    };
    for (const typeName of ours) {
      const type = schema.getType(typeName);
      if (!type) throw new Error(`${typeName} is missing from the built schema`);
      check(typeName, type.description);
      if (isObjectType(type)) {
        // _entities and _service are buildSubgraphSchema's, not ours.
        for (const field of Object.values(type.getFields()).filter((f) => !f.name.startsWith('_'))) {
          check(`${typeName}.${field.name}`, field.description);
          for (const arg of field.args) check(`${typeName}.${field.name}(${arg.name})`, arg.description);
        }
      }
      if (isInputObjectType(type))
        for (const field of Object.values(type.getFields())) check(`${typeName}.${field.name}`, field.description);
      if (isEnumType(type)) for (const value of type.getValues()) check(`${typeName}.${value.name}`, value.description);
    }
    expect([...ours].sort()).toEqual(expect.arrayContaining(['Article', 'DashboardQueryInput', 'DateTime', 'Metric', 'Query']));
    expect(undescribed).toEqual([]);
  });
});

/** The public schema, version 1: names and types that must never change (fields are added, never renamed). */
const PUBLIC_FIELDS: Record<string, Record<string, string>> = {
  Query: {
    recommendations: '[Recommendation!]',
    dashboard: '[DashboardResult!]',
  },
  Recommendation: {
    position: 'Int!',
    url: 'String!',
    title: 'String!',
    img: 'String',
    authors: '[String!]!',
    sections: '[String!]!',
    publishTime: 'String!',
    publishedAt: 'DateTime',
    article: 'Article!',
  },
  Article: { url: 'String!', related: '[Recommendation!]' },
  Reader: { clientId: 'ID!', recommendations: '[Recommendation!]' },
  DashboardResult: {
    metric: 'Metric!',
    total: 'Float!',
    granularity: 'Granularity!',
    availableGranularities: '[Granularity!]!',
    rows: '[DashboardRow!]!',
    series: '[DataPoint!]!',
  },
  DashboardRow: { key: 'ID!', total: 'Float!', dimensions: '[DimensionValue!]!', article: 'Article' },
  DimensionValue: { dimension: 'Dimension!', value: 'String!' },
  DataPoint: { time: 'DateTime!', value: 'Float!' },
};

const PUBLIC_ARGUMENTS: Record<string, string> = {
  'Query.recommendations': 'experienceId: ID!, canonicalUrl: String, domain: String, clientId: ID',
  'Query.dashboard': 'query: DashboardQueryInput!',
  'Article.related': 'experienceId: ID!, clientId: ID',
  'Reader.recommendations': 'experienceId: ID!, canonicalUrl: String, domain: String',
};

const PUBLIC_INPUTS: Record<string, string> = {
  DashboardQueryInput:
    'dates: DateWindowInput!, filters: [DashboardFilterInput!]! = [], groupBy: [Dimension!]! = [], metrics: [Metric!]!, ' +
    'order: DashboardOrderInput, granularity: Granularity, limit: Int = 100, from: Int = 0',
  DateWindowInput: 'last: RelativeWindowInput, range: DateRangeInput',
  RelativeWindowInput: 'number: Int!, unit: TimeUnit!',
  DateRangeInput: 'start: String!, end: String!',
  DashboardFilterInput: 'dimension: Dimension!, operator: FilterOperator!, values: [String!]!',
  DashboardOrderInput: 'metric: Metric!, sort: SortDirection!',
};

const PUBLIC_ENUMS: Record<string, string[]> = {
  Metric: [
    'PAGE_VIEWS_TOTAL',
    'UNIQUE_USERS',
    'TOTAL_DURATION',
    'AVERAGE_DURATION_PER_USER',
    'AVERAGE_DURATION_PER_PAGE',
    'PAGE_VIEWS_PER_USER',
    'AVERAGE_SCROLL',
    'AVERAGE_RFV',
    'CUMULATIVE_RFV',
    'REVENUE_TOTAL',
    'ADS_IMPRESSIONS',
    'CPM',
    'RPM',
    'ADS_PER_PAGE',
    'NEW_ARTICLES',
  ],
  Dimension: [
    'SOURCE',
    'SOURCE_INTERNAL',
    'MEDIUM',
    'MEDIUM_INTERNAL',
    'CAMPAIGN',
    'CAMPAIGN_INTERNAL',
    'DEVICE_TYPE',
    'USER_TYPE',
    'URL',
    'TITLE',
    'SECTION',
    'AUTHOR',
    'DOMAIN',
  ],
  Granularity: ['REALTIME', 'HOURLY', 'DAILY'],
  TimeUnit: ['MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH'],
  FilterOperator: ['EQ', 'NEQ', 'LIKE', 'NLIKE'],
  SortDirection: ['ASC', 'DESC'],
};

describe('public schema contract', () => {
  const schema = subgraphSchema();

  it.each(Object.entries(PUBLIC_FIELDS))('%s keeps its public fields and types', (typeName, fields) => {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) throw new Error(`${typeName} is not an object type`);
    const actual = Object.fromEntries(Object.keys(fields).map((name) => [name, type.getFields()[name]?.type.toString()]));
    expect(actual).toEqual(fields);
  });

  it.each(Object.entries(PUBLIC_ARGUMENTS))('%s keeps its arguments', (coordinate, expected) => {
    const [typeName, fieldName] = coordinate.split('.');
    const type = schema.getType(typeName);
    if (!isObjectType(type)) throw new Error(`${typeName} is not an object type`);
    const args = type.getFields()[fieldName]?.args ?? [];
    expect(args.map((arg) => `${arg.name}: ${arg.type.toString()}`).join(', ')).toBe(expected);
  });

  it.each(Object.entries(PUBLIC_INPUTS))('%s keeps its fields and defaults', (typeName, expected) => {
    const type = schema.getType(typeName);
    if (!isInputObjectType(type)) throw new Error(`${typeName} is not an input type`);
    const fields = Object.values(type.getFields()).map((field) => {
      const defaultValue = field.defaultValue === undefined ? '' : ` = ${JSON.stringify(field.defaultValue)}`;
      return `${field.name}: ${field.type.toString()}${defaultValue}`;
    });
    expect(fields.join(', ')).toBe(expected);
  });

  it.each(Object.entries(PUBLIC_ENUMS))('%s keeps its values', (typeName, values) => {
    const type = schema.getType(typeName);
    if (!isEnumType(type)) throw new Error(`${typeName} is not an enum`);
    expect(type.getValues().map((value) => value.name)).toEqual(values);
  });

  it('declares Article and Reader as entities keyed by url and clientId', () => {
    const keys = (typeName: string) =>
      (schema.getType(typeName)?.astNode?.directives ?? [])
        .filter((directive) => directive.name.value === 'key')
        .map((directive) => directive.arguments?.map((arg) => (arg.value.kind === Kind.STRING ? arg.value.value : '')));
    expect(keys('Article')).toEqual([['url']]);
    expect(keys('Reader')).toEqual([['clientId']]);
    const entity = schema.getType('_Entity');
    expect(
      entity && 'getTypes' in entity
        ? entity
            .getTypes()
            .map((type) => type.name)
            .sort()
        : [],
    ).toEqual(['Article', 'Reader']);
  });

  it('gives every enum a runtime map of all its values', () => {
    const enums = Object.values(schema.getTypeMap()).filter(
      (type): type is GraphQLEnumType =>
        type instanceof GraphQLEnumType &&
        !type.name.startsWith('_') &&
        !type.name.includes('__') &&
        // The @cacheControl directive's argument: read from the SDL by Apollo's plugin, never by a resolver.
        type.name !== 'CacheControlScope',
    );
    expect(enums.map((type) => type.name).sort()).toEqual(Object.keys(PUBLIC_ENUMS).sort());
    for (const type of enums) {
      const map: unknown = resolvers[type.name];
      expect([type.name, Object.keys(map ?? {}).sort()]).toEqual([
        type.name,
        type
          .getValues()
          .map((value) => value.name)
          .sort(),
      ]);
    }
  });

  it('serves enum values by their upstream names internally', () => {
    const metric = schema.getType('Metric');
    if (!(metric instanceof GraphQLEnumType)) throw new Error('Metric is not an enum');
    expect(metric.getValue('AVERAGE_RFV')?.value).toBe('averageRFV');
    expect(metric.serialize('CPM')).toBe('CPM');
    expect(metric.serialize('pageViewsTotal')).toBe('PAGE_VIEWS_TOTAL');
  });
});

describe('DateTime scalar', () => {
  it('serializes ISO strings and Dates as UTC ISO-8601', () => {
    expect(DateTimeScalar.serialize('2026-11-20T10:15:00+02:00')).toBe('2026-11-20T08:15:00.000Z');
    expect(DateTimeScalar.serialize(new Date(Date.UTC(2026, 10, 20, 8, 15)))).toBe('2026-11-20T08:15:00.000Z');
  });

  it("sends the subgraph's own values (already toISOString's form) as they are, and still refuses an impossible one of that form", () => {
    expect(DateTimeScalar.serialize('2026-11-20T08:15:00.000Z')).toBe('2026-11-20T08:15:00.000Z');
    expect(DateTimeScalar.serialize('2024-02-29T23:59:59.999Z')).toBe('2024-02-29T23:59:59.999Z');
    expect(() => DateTimeScalar.serialize('2026-02-29T08:15:00.000Z')).toThrow(GraphQLError);
    expect(() => DateTimeScalar.serialize('2026-11-20T24:15:00.000Z')).toThrow(GraphQLError);
  });

  it('refuses to serialize anything that is not an instant', () => {
    expect(() => DateTimeScalar.serialize('2026-11-20 08:15:00')).toThrow(GraphQLError);
    expect(() => DateTimeScalar.serialize(new Date(Number.NaN))).toThrow('DateTime cannot represent an invalid Date');
    expect(() => DateTimeScalar.serialize(42)).toThrow('DateTime cannot represent number');
  });

  it('parses ISO-8601 variables and literals to UTC, and names the expected format otherwise', () => {
    expect(DateTimeScalar.parseValue('2026-11-20T08:15:00.5-01:30')).toBe('2026-11-20T09:45:00.500Z');
    expect(DateTimeScalar.parseValue('2026-11-20')).toBe('2026-11-20T00:00:00.000Z');
    expect(DateTimeScalar.parseLiteral(parseValueNode('"2026-11-20T08:15:00Z"'))).toBe('2026-11-20T08:15:00.000Z');
    expect(() => DateTimeScalar.parseValue('20/11/2026')).toThrow(
      'DateTime cannot represent "20/11/2026": expected an ISO-8601 date-time with a zone (e.g. "2026-11-20T08:15:00Z") or a date "YYYY-MM-DD"',
    );
    expect(() => DateTimeScalar.parseValue(1_700_000_000_000)).toThrow('DateTime must be a string, got number');
    expect(() => DateTimeScalar.parseLiteral(parseValueNode('12'))).toThrow('DateTime must be a string literal, got IntValue');
  });
});

describe('time formats', () => {
  it('reads the upstream yyyy-MM-dd HH:mm:ss as UTC', () => {
    expect(upstreamTimeToIso('2026-11-20 08:15:00')).toBe('2026-11-20T08:15:00.000Z');
    expect(upstreamTimeToIso('2024-02-29 23:59:59')).toBe('2024-02-29T23:59:59.000Z');
  });

  it.each(['2000-02-29 00:00:00', '0004-02-29 12:00:00', '0099-12-31 23:59:59', '9999-01-31 00:00:00', '2026-04-30 06:07:08'])(
    'gives what Date#toISOString gives for the valid upstream time %j',
    (text) => {
      expect(upstreamTimeToIso(text)).toBe(new Date(`${text.replace(' ', 'T')}Z`).toISOString());
    },
  );

  it('treats an unchecked upstream time reaching a resolver as a bug, not a value', () => {
    expect(checkedUpstreamTimeToIso('2026-11-20 08:15:00')).toBe('2026-11-20T08:15:00.000Z');
    expect(() => checkedUpstreamTimeToIso('yesterday')).toThrow('"yesterday" was not checked at the boundary');
  });

  it.each([
    '2026-02-29 00:00:00',
    '1900-02-29 00:00:00',
    '2026-04-31 00:00:00',
    '2026-11-20T08:15:00',
    '2026-11-20 24:00:00',
    '2026-13-01 00:00:00',
    '2026-11-20',
    '',
    'soon',
  ])('rejects the upstream time %j', (text) => {
    expect(upstreamTimeToIso(text)).toBeUndefined();
  });

  it('reads ISO-8601 with a zone, or a date, and nothing ambiguous', () => {
    expect(parseIsoInstant('2026-11-20T08:15Z')).toBe(Date.UTC(2026, 10, 20, 8, 15));
    expect(parseIsoInstant('2026-11-20T08:15:00+0100')).toBe(Date.UTC(2026, 10, 20, 7, 15));
    expect(parseIsoInstant('0099-01-01')).toBe(new Date('0099-01-01T00:00:00Z').getTime());
    expect(parseIsoInstant('2026-11-20T08:15:00')).toBeUndefined();
    expect(parseIsoInstant('2026-04-31')).toBeUndefined();
    expect(parseIsoInstant('2026-11-20T08:60:00Z')).toBeUndefined();
  });
});

function parseValueNode(source: string) {
  const document = parse(`{ f(a: ${source}) }`);
  const operation = document.definitions[0];
  if (operation.kind !== Kind.OPERATION_DEFINITION) throw new Error('unexpected document');
  const selection = operation.selectionSet.selections[0];
  if (selection.kind !== Kind.FIELD || !selection.arguments?.[0]) throw new Error('unexpected document');
  return selection.arguments[0].value;
}
