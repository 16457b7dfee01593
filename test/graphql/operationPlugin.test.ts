import { ApolloServer } from '@apollo/server';
import { Registry } from 'prom-client';
import { createLogger } from '../../src/observability/logger';
import { Metrics } from '../../src/observability/metrics/metrics';
import { operationPlugin } from '../../src/graphql/operationPlugin';
import { NO_OBSERVER, safeObserver, type Observer } from '../../src/kernel/observer';
import { metricsObserver } from '../../src/observability/metricsObserver';
import { operationLog } from '../../src/observability/operationLog';
import { METRICS_DEFAULTS } from '../../src/config';
import type { Caller } from '../../src/auth/callers/caller';
import type { Context } from '../../src/operation/context';

const typeDefs = 'type Query { ok: Int, broken: Int }';
const resolvers = {
  Query: {
    ok: () => 1,
    broken: () => {
      throw new Error('bug');
    },
  },
};

/** A context with only the caller: all the plugin reads of it besides what it guards with `?.`. */
function withCaller(caller: Caller): Context {
  return { caller } as unknown as Context;
}

/** The one observer as the process composes it: the operation log's lines, and the metrics when on. */
function oneObserver(logger: Parameters<typeof operationLog>[0], metrics?: Metrics): Observer {
  return safeObserver(metrics === undefined ? NO_OBSERVER : metricsObserver(metrics), operationLog(logger));
}

/** A clock that moves 40 ms each time it is read: start, then the one reading at the end of the operation. */
function steppingClock(stepMs: number): () => number {
  let now = 0;
  return () => (now += stepMs);
}

describe('the operation plugin', () => {
  it('computes outcome and duration once, and the log line and the metrics say the same', async () => {
    const written: string[] = [];
    const logger = createLogger({ logLevel: 'info' }, { write: (line: string) => written.push(line) });
    const metrics = new Metrics({ ...METRICS_DEFAULTS, processMetrics: false });
    const server = new ApolloServer({
      typeDefs,
      resolvers,
      plugins: [operationPlugin({ observer: oneObserver(logger, metrics), now: steppingClock(40) })],
    });
    await server.start();
    try {
      await server.executeOperation({ query: 'query Fine { ok }' });
      await server.executeOperation({ query: 'query Crash { broken }' });
    } finally {
      await server.stop();
    }

    const lines = written.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => 'operationName' in entry);
    expect(lines.map((entry) => [entry.operationName, entry.outcome, entry.durationMs])).toEqual([
      ['Fine', 'ok', 40],
      ['Crash', 'INTERNAL_SERVER_ERROR', 40],
    ]);
    const registry: Registry = metrics.registry;
    const counted = await registry.getSingleMetricAsString('subgraph_graphql_operations_total');
    expect(counted).toContain('operation_name="Fine",operation_type="query",outcome="ok"} 1');
    expect(counted).toContain('operation_name="Crash",operation_type="query",outcome="INTERNAL_SERVER_ERROR"} 1');
    const durations = await registry.getSingleMetricAsString('subgraph_graphql_operation_duration_seconds');
    expect(durations).toContain('operation_name="Fine",operation_type="query",outcome="ok"} 0.04');
  });

  it('still writes the log line when metrics are off', async () => {
    const written: string[] = [];
    const logger = createLogger({ logLevel: 'info' }, { write: (line: string) => written.push(line) });
    const server = new ApolloServer({
      typeDefs,
      resolvers,
      plugins: [operationPlugin({ observer: oneObserver(logger), now: steppingClock(1) })],
    });
    await server.start();
    try {
      await server.executeOperation({ query: 'query Fine { ok }' });
    } finally {
      await server.stop();
    }
    expect(written.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['graphql operation']);
  });

  it("names the caller's client (apollographql-client-name, a label only) in the log line, when it sent one", async () => {
    const written: string[] = [];
    const logger = createLogger({ logLevel: 'info' }, { write: (line: string) => written.push(line) });
    const server = new ApolloServer({
      typeDefs,
      resolvers,
      plugins: [operationPlugin({ observer: oneObserver(logger), now: steppingClock(1) })],
    });
    await server.start();
    try {
      await server.executeOperation(
        { query: 'query Named { ok }' },
        { contextValue: withCaller({ id: 'unverified', clientName: 'homepage-widgets' }) },
      );
      await server.executeOperation({ query: 'query Unnamed { ok }' }, { contextValue: withCaller({ id: 'unverified' }) });
    } finally {
      await server.stop();
    }
    const lines = written.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((entry) => [entry.operationName, entry.clientName])).toEqual([
      ['Named', 'homepage-widgets'],
      ['Unnamed', undefined],
    ]);
  });
});
