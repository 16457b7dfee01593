/** A graphql-ws client (the library Apollo Client and the routers use) recording what one subscription receives. */
import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';
import WebSocket from 'ws';

export interface Subscriber<T> {
  client: Client;
  /** Every `next` payload, in order. */
  results: FormattedExecutionResult<T>[];
  /** Resolves once `count` results have arrived. */
  received(count: number): Promise<FormattedExecutionResult<T>[]>;
  /** Resolves with the first result (already arrived or to come) that `matches`. */
  receivedWhere(matches: (result: FormattedExecutionResult<T>) => boolean): Promise<FormattedExecutionResult<T>>;
  /** Settles when the subscription ends: completed, or with the error (`error` message or close event). */
  ended: Promise<{ completed: true } | { error: unknown }>;
  /** The socket's close event, once it closed. */
  closed: Promise<{ code: number; reason: string }>;
  /** Completes this subscription only (the socket stays). */
  unsubscribe(): void;
  /** Completes it and closes the client's socket. */
  dispose(): Promise<void>;
}

export function subscribe<T = Record<string, unknown>>(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  client: Client = connect(url),
): Subscriber<T> {
  const results: FormattedExecutionResult<T>[] = [];
  const watchers: { count: number; reached: () => void }[] = [];
  const predicates: { matches: (result: FormattedExecutionResult<T>) => boolean; found: (result: FormattedExecutionResult<T>) => void }[] =
    [];
  let endWith: (outcome: { completed: true } | { error: unknown }) => void = () => undefined;
  const ended = new Promise<{ completed: true } | { error: unknown }>((resolve) => (endWith = resolve));
  let closeWith: (event: { code: number; reason: string }) => void = () => undefined;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (closeWith = resolve));
  client.on('closed', (event) => {
    const { code, reason } = event as { code: number; reason: string };
    closeWith({ code, reason: String(reason) });
  });
  const unsubscribe = client.subscribe<T>(
    { query, variables },
    {
      next: (result) => {
        results.push(result as FormattedExecutionResult<T>);
        for (const predicate of [...predicates]) {
          if (!predicate.matches(result as FormattedExecutionResult<T>)) continue;
          predicates.splice(predicates.indexOf(predicate), 1);
          predicate.found(result as FormattedExecutionResult<T>);
        }
        for (const watcher of [...watchers]) {
          if (results.length < watcher.count) continue;
          watchers.splice(watchers.indexOf(watcher), 1);
          watcher.reached();
        }
      },
      error: (error) => endWith({ error }),
      complete: () => endWith({ completed: true }),
    },
  );
  return {
    client,
    results,
    received: (count) =>
      results.length >= count
        ? Promise.resolve(results)
        : new Promise((reached) => watchers.push({ count, reached: () => reached(results) })),
    receivedWhere: (matches) => {
      const found = results.find(matches);
      return found !== undefined ? Promise.resolve(found) : new Promise((resolve) => predicates.push({ matches, found: resolve }));
    },
    ended,
    closed,
    unsubscribe,
    async dispose() {
      unsubscribe();
      await client.dispose();
    },
  };
}

/** One socket, no retries: a test sees each close as it happened. `headers` go on the upgrade request (as a router forwards them). */
export function connect(url: string, connectionParams?: Record<string, unknown>, headers?: Record<string, string>): Client {
  return createClient({
    url,
    webSocketImpl: headers === undefined ? WebSocket : withHeaders(headers),
    retryAttempts: 0,
    lazy: false,
    ...(connectionParams === undefined ? {} : { connectionParams }),
    onNonLazyError: () => undefined,
  });
}

/** A `ws` WebSocket that sends these headers with its upgrade request (browsers cannot; routers and servers do). */
function withHeaders(headers: Record<string, string>): unknown {
  return class extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      super(address, protocols ?? [], { headers });
    }
  };
}
