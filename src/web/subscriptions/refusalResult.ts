import { buildSchema, parse, type ExecutionArgs } from 'graphql';

/**
 * graphql-ws sends what its `subscribe` hook returns: a stream as `next`
 * messages, a single result as one `next` then `complete`. To send a refusal
 * that way, onSubscribe must return execution arguments naming a subscription
 * operation (graphql-ws reads only the operation's type from them); these name
 * one of a schema of its own, never executed: the hook returns the refusal.
 */
const REFUSAL_SCHEMA = buildSchema('type Query { refused: Boolean } type Subscription { refused: Boolean }');
const REFUSAL_DOCUMENT = parse('subscription { refused }');

/** Arguments for one refused subscribe message; its `contextValue` is a fresh object, the key of the refusal's result. */
export function refusalArgs(): ExecutionArgs {
  return { schema: REFUSAL_SCHEMA, document: REFUSAL_DOCUMENT, contextValue: {} };
}
