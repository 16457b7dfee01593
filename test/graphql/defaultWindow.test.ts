/**
 * The default analytics window is written once in code (DEFAULT_ANALYTICS_WINDOW, for an explicit
 * `window: null`) and once in the schema (the default argument GraphQL applies to an omitted window):
 * the two must say the same, for `Article.analytics` and `Subscription.articleAnalytics` alike.
 */
import { isObjectType, type GraphQLSchema } from 'graphql';
import { DEFAULT_ANALYTICS_WINDOW } from '../../src/reporting/dashboard/analyticsWindow';
import { buildSchema } from '../../src/graphql/subgraphSchema';

function windowDefault(schema: GraphQLSchema, typeName: string, fieldName: string): unknown {
  const type = schema.getType(typeName);
  if (!isObjectType(type)) throw new Error(`${typeName} is no object type`);
  return type.getFields()[fieldName]?.args.find((argument) => argument.name === 'window')?.defaultValue;
}

describe('the default analytics window', () => {
  const schema = buildSchema();

  it.each([
    ['Article', 'analytics'],
    ['Subscription', 'articleAnalytics'],
  ])('%s.%s defaults to the window an explicit null gets', (typeName, fieldName) => {
    expect(windowDefault(schema, typeName, fieldName)).toEqual(DEFAULT_ANALYTICS_WINDOW);
  });
});
