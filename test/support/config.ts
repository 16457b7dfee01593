import { defaultLandingPage, loadConfig, type Config } from '../../src/config';

/** Every default, once: what `loadConfig` gives an empty environment (the embedded emulator, no Redis). */
const DEFAULTS: Config = loadConfig({});

export type ConfigOverrides = Partial<Omit<Config, 'cache' | 'analytics'>> & {
  cache?: Partial<Config['cache']>;
  analytics?: Partial<Config['analytics']>;
};

/**
 * A complete configuration built from the defaults in src/config/, with the
 * given settings replaced (`cache` and `analytics` field by field): the one way tests build a
 * config, so a new setting gets its default here without editing every test.
 * One value differs from production's: no shutdown delay (no load balancer
 * to wait for), unless a test sets one.
 */
export function testConfig(overrides: ConfigOverrides = {}): Config {
  // The landing page's default follows the mode, as it does in loadConfig.
  const landingPage = defaultLandingPage(overrides.production ?? DEFAULTS.production);
  return {
    ...DEFAULTS,
    shutdownDelaySeconds: 0,
    landingPage,
    ...overrides,
    cache: { ...DEFAULTS.cache, ...overrides.cache },
    analytics: { ...DEFAULTS.analytics, ...overrides.analytics },
  };
}
