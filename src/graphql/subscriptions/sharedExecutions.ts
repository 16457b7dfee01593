import stableStringify from 'fast-json-stable-stringify';
import { print, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Caller } from '../../auth/callers/caller';

type Executed = ExecutionResult | Promise<ExecutionResult>;

/**
 * Each event of a feed executed once for every subscriber that would execute
 * it alike (same document, operation, variables and caller's rights), not
 * once per subscriber: a feed pushes the same emission object to all its
 * subscribers, so 10,000 screens on 100 feeds cost 100 executions a refresh,
 * and each of them hands every subscriber the same result object (whose
 * `next` payload the transport then serializes once: web/subscriptions/).
 * The results hang off the emission (a WeakMap): they go when the feed drops it.
 *
 * The caller is part of the key because a resolver may read what the caller
 * may see; any subscriber's context executes for its alikes, as theirs would.
 */
export class SharedExecutions {
  private readonly byEvent = new WeakMap<object, Map<string, Executed>>();
  private readonly documentTexts = new WeakMap<DocumentNode, string>();
  private readonly callerKeys = new WeakMap<Caller, string>();

  /** What two subscriptions must share for one execution of an event to serve both. */
  keyOf(args: Pick<ExecutionArgs, 'document' | 'operationName' | 'variableValues'>, caller: Caller): string {
    return JSON.stringify([
      this.documentTextOf(args.document),
      args.operationName ?? null,
      this.callerKeyOf(caller),
      stableStringify(args.variableValues ?? {}),
    ]);
  }

  /** The event's result for this key: executed (`run`, as graphql-js maps an event) by the first subscriber to ask. */
  resultOf(event: unknown, key: string, run: () => Executed): Executed {
    if (typeof event !== 'object' || event === null) return run();
    let results = this.byEvent.get(event);
    if (results === undefined) {
      results = new Map();
      this.byEvent.set(event, results);
    }
    let result = results.get(key);
    if (result === undefined) {
      result = run();
      results.set(key, result);
    }
    return result;
  }

  /** The document as printed: equal operations share whether or not Apollo handed them the same object. */
  private documentTextOf(document: DocumentNode): string {
    let text = this.documentTexts.get(document);
    if (text === undefined) {
      text = print(document);
      this.documentTexts.set(document, text);
    }
    return text;
  }

  private callerKeyOf(caller: Caller): string {
    let key = this.callerKeys.get(caller);
    if (key === undefined) {
      const sorted = (values: ReadonlySet<string> | undefined) => (values === undefined ? null : [...values].sort());
      key = JSON.stringify([caller.id, sorted(caller.scopes), sorted(caller.sites)]);
      this.callerKeys.set(caller, key);
    }
    return key;
  }
}

/** A subscriber's stream of results: each event of its source stream, mapped (as graphql-js `subscribe` maps them). */
export function mapEvents(events: AsyncIterable<unknown>, toResult: (event: unknown) => Executed): AsyncIterableIterator<ExecutionResult> {
  const iterator = events[Symbol.asyncIterator]();
  const results: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      const event = await iterator.next();
      if (event.done === true) return { value: undefined, done: true };
      return { value: await toResult(event.value), done: false };
    },
    async return() {
      await iterator.return?.();
      return { value: undefined, done: true };
    },
    async throw(error: unknown) {
      await iterator.return?.();
      throw error;
    },
    [Symbol.asyncIterator]: () => results,
  };
  return results;
}
