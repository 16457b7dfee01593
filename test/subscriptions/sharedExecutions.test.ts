/**
 * Which subscribers share one execution of an event (issue 38, item 2): only
 * those with the same document, operation, variables and caller's rights
 * (id, scopes, sites); a caller who may see less never gets the result of
 * one who may see more.
 */
import { parse } from 'graphql';
import type { Caller } from '../../src/auth/callers/caller';
import { SharedExecutions } from '../../src/graphql/subscriptions/sharedExecutions';

const QUERY = `subscription ($limit: Int, $metric: Metric) { topArticles(limit: $limit, metric: $metric) { rank value } }`;
const args = (variableValues: Record<string, unknown>, query = QUERY) => ({ document: parse(query), variableValues });
const caller = (id: string, scopes?: string[], sites?: string[]): Caller => ({
  id,
  ...(scopes === undefined ? {} : { scopes: new Set(scopes) }),
  ...(sites === undefined ? {} : { sites: new Set(sites) }),
});

it('gives one key to equal subscriptions of equal callers, however their variables and sets are ordered', () => {
  const shared = new SharedExecutions();
  const one = shared.keyOf(args({ limit: 5, metric: 'PAGE_VIEWS' }), caller('router', ['a', 'b'], ['x.example', 'y.example']));
  const other = shared.keyOf(args({ metric: 'PAGE_VIEWS', limit: 5 }), caller('router', ['b', 'a'], ['y.example', 'x.example']));
  expect(other).toBe(one);
});

it('keeps apart other variables, another selection, and callers with other ids, scopes or sites', () => {
  const shared = new SharedExecutions();
  const base = shared.keyOf(args({ limit: 5 }), caller('router', ['a'], ['x.example']));
  const others = [
    shared.keyOf(args({ limit: 6 }), caller('router', ['a'], ['x.example'])),
    shared.keyOf(
      args({ limit: 5 }, `subscription ($limit: Int) { topArticles(limit: $limit) { rank } }`),
      caller('router', ['a'], ['x.example']),
    ),
    shared.keyOf(args({ limit: 5 }), caller('another', ['a'], ['x.example'])),
    shared.keyOf(args({ limit: 5 }), caller('router', ['a', 'revenue:read'], ['x.example'])),
    shared.keyOf(args({ limit: 5 }), caller('router', ['a'], ['x.example', 'y.example'])),
    shared.keyOf(args({ limit: 5 }), caller('router', undefined, ['x.example'])),
    shared.keyOf(args({ limit: 5 }), caller('router', ['a'])),
  ];
  expect(new Set([base, ...others]).size).toBe(others.length + 1);
});

it('executes an event once per key, and each new event again', () => {
  const shared = new SharedExecutions();
  let runs = 0;
  const run = () => ({ data: { run: (runs += 1) } });
  const first = { value: 1 };
  const second = { value: 2 };
  const a = shared.resultOf(first, 'a', run);
  expect(shared.resultOf(first, 'a', run)).toBe(a);
  expect(shared.resultOf(first, 'b', run)).not.toBe(a);
  expect(shared.resultOf(second, 'a', run)).not.toBe(a);
  expect(runs).toBe(3);
});
