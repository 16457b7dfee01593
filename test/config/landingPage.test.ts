/** LANDING_PAGE: what a browser's GET /graphql shows (src/config/server.ts). */
import { ConfigError, loadConfig } from '../../src/config';

describe('LANDING_PAGE', () => {
  test('defaults to the Sandbox in development and to no page in production, as before the setting', () => {
    expect(loadConfig({}).landingPage).toBe('sandbox');
    expect(loadConfig({ NODE_ENV: 'production' }).landingPage).toBe('none');
  });

  test.each(['sandbox', 'offline', 'none'] as const)('accepts %s, in either mode', (value) => {
    expect(loadConfig({ LANDING_PAGE: value }).landingPage).toBe(value);
    expect(loadConfig({ LANDING_PAGE: value, NODE_ENV: 'production' }).landingPage).toBe(value);
  });

  test('an empty value counts as unset', () => {
    expect(loadConfig({ LANDING_PAGE: '' }).landingPage).toBe('sandbox');
  });

  test('refuses anything else, naming the values it accepts', () => {
    expect(() => loadConfig({ LANDING_PAGE: 'graphiql' })).toThrow(ConfigError);
    expect(() => loadConfig({ LANDING_PAGE: 'graphiql' })).toThrow('LANDING_PAGE must be one of sandbox, offline, none (got "graphiql")');
  });
});
