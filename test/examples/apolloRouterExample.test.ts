/**
 * examples/apollo-router/router.yaml, checked as far as it can be here: no
 * Apollo Router binary can be installed on the machines this project is built
 * on (a native binary, downloaded by its installer), so the file is parsed and
 * every key checked against the configuration keys Apollo documents for
 * GraphOS Router 2.x (written below from its configuration reference), and
 * its values against what the subgraph expects (the subgraph's name, header,
 * path and protocol; the demand-control limit the weights are tuned for).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const FILE = path.resolve(__dirname, '../../examples/apollo-router/router.yaml');

/** A documented key's shape: a leaf value, an object of documented keys, a map of names (`*`), or a list of items. */
type Shape = 'value' | { keys: Record<string, Shape> } | { names: Shape } | { items: Shape };
const value = 'value' as const;
const keys = (shape: Record<string, Shape>): Shape => ({ keys: shape });
const names = (shape: Shape): Shape => ({ names: shape });
const items = (shape: Shape): Shape => ({ items: shape });

/** The header rules of Apollo Router's `headers` plugin. */
const HEADER_RULE = keys({
  insert: keys({ name: value, value: value, from_context: value }),
  propagate: keys({ named: value, rename: value, default: value, matching: value }),
  remove: keys({ named: value, matching: value }),
});

/**
 * The keys of Apollo's router configuration reference that the example uses, with their documented children
 * (https://www.apollographql.com/docs/graphos/routing/configuration): `supergraph`, `headers`,
 * `authentication.router.jwt`, `authorization`, `include_subgraph_errors`, `subscription`, `demand_control`,
 * `response_cache` (Router >= 2.10).
 */
const DOCUMENTED: Shape = keys({
  supergraph: keys({ listen: value, path: value, introspection: value }),
  headers: keys({ all: keys({ request: items(HEADER_RULE) }), subgraphs: names(keys({ request: items(HEADER_RULE) })) }),
  authentication: keys({
    router: keys({
      jwt: keys({
        jwks: items(
          keys({
            url: value,
            issuers: items(value),
            audiences: items(value),
            poll_interval: value,
            algorithms: items(value),
            headers: value,
          }),
        ),
        header_name: value,
        header_value_prefix: value,
        ignore_other_prefixes: value,
        sources: value,
        on_error: value,
      }),
    }),
  }),
  authorization: keys({
    require_authentication: value,
    directives: keys({ enabled: value, dry_run: value, reject_unauthorized: value, errors: value }),
  }),
  include_subgraph_errors: keys({ all: value, subgraphs: names(value) }),
  subscription: keys({
    enabled: value,
    mode: keys({
      passthrough: keys({
        all: keys({ path: value, protocol: value, heartbeat_interval: value }),
        subgraphs: names(keys({ path: value, protocol: value, heartbeat_interval: value })),
      }),
      callback: keys({ public_url: value, listen: value, path: value, heartbeat_interval: value, subgraphs: items(value) }),
    }),
    enable_deduplication: value,
    max_opened_subscriptions: value,
    queue_capacity: value,
  }),
  demand_control: keys({
    enabled: value,
    mode: value,
    strategy: keys({ static_estimated: keys({ list_size: value, max: value }) }),
  }),
  response_cache: keys({
    enabled: value,
    subgraph: keys({
      all: keys({ enabled: value, ttl: value, redis: keys({ urls: items(value), timeout: value, namespace: value }), private_id: value }),
      subgraphs: names(keys({ enabled: value, ttl: value, private_id: value })),
    }),
  }),
});

/** Every key path of `config` that the documented shape does not have. */
function undocumented(config: unknown, shape: Shape, at: string): string[] {
  if (shape === 'value') return [];
  if ('items' in shape) {
    if (!Array.isArray(config)) return [`${at} must be a list`];
    return config.flatMap((item, index) => undocumented(item, shape.items, `${at}[${index}]`));
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return [`${at} must be a map`];
  return Object.entries(config).flatMap(([key, child]) => {
    const where = at === '' ? key : `${at}.${key}`;
    if ('names' in shape) return undocumented(child, shape.names, where);
    const childShape = shape.keys[key];
    return childShape === undefined ? [where] : undocumented(child, childShape, where);
  });
}

interface RouterConfig {
  headers: { subgraphs: Record<string, { request: Record<string, Record<string, string>>[] }> };
  subscription: { mode: { passthrough: { subgraphs: Record<string, { path: string; protocol: string }> } } };
  demand_control: { strategy: { static_estimated: { list_size: number; max: number } } };
  include_subgraph_errors: { subgraphs: Record<string, boolean> };
  authorization: { directives: { enabled: boolean } };
}

const text = readFileSync(FILE, 'utf8');
const config = parse(text) as RouterConfig;

test('router.yaml is YAML with only keys Apollo documents (no router binary here to load it)', () => {
  expect(undocumented(config, DOCUMENTED, '')).toEqual([]);
});

test('the documented-keys check catches a misspelt or unknown key', () => {
  expect(undocumented({ demand_control: { stratgy: {} }, header: {} }, DOCUMENTED, '')).toEqual(['demand_control.stratgy', 'header']);
});

test('it proves the router to the subgraph and forwards the caller (CALLER_AUTH=router-secret,jwt)', () => {
  const rules = config.headers.subgraphs.analytics.request;
  expect(rules).toContainEqual({ insert: { name: 'x-router-secret', value: '${env.ROUTER_SECRET}' } });
  expect(rules).toContainEqual({ propagate: { named: 'authorization' } });
  expect(rules).toContainEqual({ propagate: { named: 'apollographql-client-name' } });
  expect(config.authorization.directives.enabled).toBe(true);
  expect(config.include_subgraph_errors.subgraphs.analytics).toBe(true);
});

test('subscriptions go to the subgraph over graphql-transport-ws on /graphql, and demand control uses the tuned limit', () => {
  expect(config.subscription.mode.passthrough.subgraphs.analytics).toEqual({ path: '/graphql', protocol: 'graphql_ws' });
  expect(config.demand_control.strategy.static_estimated).toEqual({ list_size: 10, max: 1000 });
});

test('secrets come from the environment, never from the file', () => {
  const references = [...text.matchAll(/\$\{env\.([A-Z_]+)\}/g)].map((match) => match[1]);
  expect(new Set(references)).toEqual(new Set(['ROUTER_SECRET', 'JWT_JWKS_URL', 'JWT_ISSUER']));
});
