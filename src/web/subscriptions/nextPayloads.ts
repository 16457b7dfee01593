import type { ExecutionResult, GraphQLError } from 'graphql';
import type { FormattedExecutionResult } from 'graphql-ws';

/** Stands for the payload in graphql-ws's text of a message, until the payload's own text replaces it. */
const MARK = '\u0000payload';
const QUOTED_MARK = JSON.stringify(MARK);

/**
 * Each `next` payload serialized once, however many subscribers receive it.
 * The subscriptions share one result object per feed, event and selection
 * (src/graphql/subscriptions/sharedExecutions.ts); graphql-ws would still
 * stringify it into each subscriber's message (10,000 stringifications of the
 * same ranking a refresh). Here a result's payload (its errors formatted as
 * HTTP answers format them) becomes one object and one JSON text; graphql-ws's
 * replacer (`replacer`) leaves a mark where that payload goes, and the
 * socket's send (`message`) puts the text in its place. graphql-ws makes the
 * message and sends it in one synchronous step, so the text held is always
 * the message's own. The bytes on the wire are those graphql-ws would write.
 */
export class NextPayloads {
  private readonly payloads = new WeakMap<ExecutionResult, FormattedExecutionResult>();
  private readonly texts = new WeakMap<object, string>();
  private held: string | undefined;

  constructor(private readonly formatError: (error: GraphQLError) => ReturnType<GraphQLError['toJSON']>) {}

  /** The payload of a result's `next` message: one object, with its text, for every subscriber given this result. */
  payloadOf(result: ExecutionResult): FormattedExecutionResult {
    let payload = this.payloads.get(result);
    if (payload === undefined) {
      const { errors, ...withoutErrors } = result;
      // As graphql-ws builds it (and as the formatted errors were before): the result's keys in order, errors formatted.
      payload = errors === undefined ? withoutErrors : { ...result, errors: errors.map((error) => this.formatError(error)) };
      this.payloads.set(result, payload);
      this.texts.set(payload, JSON.stringify(payload));
    }
    return payload;
  }

  /** graphql-ws's `jsonMessageReplacer`: a payload with its text already made is held, and marked in the message. */
  readonly replacer = (key: string, value: unknown): unknown => {
    if (key !== 'payload' || typeof value !== 'object' || value === null) return value;
    const text = this.texts.get(value);
    if (text === undefined) return value;
    this.held = text;
    return MARK;
  };

  /** The message as sent: the payload held at its making put where its mark is (the last key of a `next` message). */
  message(data: string): string {
    const text = this.held;
    if (text === undefined) return data;
    this.held = undefined;
    const at = data.lastIndexOf(QUOTED_MARK);
    return at < 0 ? data : `${data.slice(0, at)}${text}${data.slice(at + QUOTED_MARK.length)}`;
  }
}
