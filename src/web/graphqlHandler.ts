import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap, type ApolloServer, type BaseContext, type HTTPGraphQLResponse } from '@apollo/server';
import type { Caller } from '../auth/callers/caller';
import { BodyError, readJsonBody } from './body';
import { describeRefusal, type CallerGate, type Refusal } from './callerGate';
import type { CorsPolicy } from './cors';
import { sendJson, sendRequestError, type RouteHandler } from './respond';

export interface GraphQLHandlerOptions<TContext extends BaseContext> {
  apollo: ApolloServer<TContext>;
  /** Built once per GraphQL request, for the caller the gate admitted. */
  context: (caller: Caller) => Promise<TContext>;
  /** The proofs (CALLER_AUTH) every request must carry, checked before the body is parsed. */
  gate: CallerGate;
  cors: CorsPolicy;
  bodyLimitBytes: number;
  /** Added to the landing page (an HTML answer): Apollo's landing-page hook sets no headers of its own. */
  landingPageHeaders?: Readonly<Record<string, string>>;
  /** For failures outside GraphQL execution (bugs): they are logged, the client gets a generic 500. */
  onError(error: unknown): void;
}

/**
 * Apollo Server straight on node:http: CORS, the JSON body, then
 * executeHTTPGraphQLRequest, whose status and headers (cache-control
 * included) are passed through as they are. Apollo itself handles GET and
 * POST, the landing page, CSRF prevention and GraphQL errors; no ETag is
 * ever computed.
 */
export function createGraphQLHandler<TContext extends BaseContext>(options: GraphQLHandlerOptions<TContext>): RouteHandler {
  return async (request, response) => {
    try {
      // Checked first so that the usual request (a router's, without Origin) awaits nothing for CORS.
      if (options.cors.concerns(request) && !(await options.cors.apply(request, response))) return;
      const admission = await options.gate.admit(request, async () =>
        request.method === 'POST' ? await readJsonBody(request, options.bodyLimitBytes) : undefined,
      );
      if ('refusal' in admission) {
        refuse(response, admission.refusal);
        return;
      }
      const { caller, body } = admission;
      const result = await options.apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: request.method ?? 'GET', headers: headerMap(request), search: searchOf(request.url), body },
        context: () => options.context(caller),
      });
      if (options.landingPageHeaders && isHtml(result))
        for (const [name, value] of Object.entries(options.landingPageHeaders)) result.headers.set(name, value);
      await send(response, result);
    } catch (error) {
      fail(response, error, options.onError);
    }
  };
}

function isHtml(result: HTTPGraphQLResponse): boolean {
  return result.headers.get('content-type')?.startsWith('text/html') ?? false;
}

/** 401 (or 503) in the GraphQL error shape, naming every problem; a body left unread closes the connection. */
function refuse(response: ServerResponse, refusal: Refusal): void {
  if (!response.req.complete) response.setHeader('connection', 'close');
  if (refusal.retryAfterSeconds !== undefined) response.setHeader('retry-after', String(refusal.retryAfterSeconds));
  const { code, message } = describeRefusal(refusal);
  sendJson(response, refusal.status, { errors: [{ message, extensions: { code, problems: refusal.problems } }] });
}

function headerMap(request: IncomingMessage): HeaderMap {
  const headers = new HeaderMap();
  const raw = request.headers;
  for (const name in raw) {
    const value = raw[name];
    // Node lower-cases names; repeated headers are joined like the Fetch API's Headers.
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

function searchOf(url: string | undefined): string {
  const index = url === undefined ? -1 : url.indexOf('?');
  return index < 0 ? '' : url!.slice(index);
}

async function send(response: ServerResponse, result: HTTPGraphQLResponse): Promise<void> {
  response.statusCode = result.status ?? 200;
  for (const [name, value] of result.headers) {
    // CORS may already have said `Vary: Origin`; Apollo's own Vary must add to it, not replace it.
    const earlier = name === 'vary' ? response.getHeader('vary') : undefined;
    response.setHeader(name, earlier === undefined ? value : `${String(earlier)}, ${value}`);
  }
  if (result.body.kind === 'complete') {
    response.setHeader('content-length', Buffer.byteLength(result.body.string));
    response.end(result.body.string);
    return;
  }
  for await (const chunk of result.body.asyncIterator) response.write(chunk);
  response.end();
}

function fail(response: ServerResponse, error: unknown, onError: (error: unknown) => void): void {
  if (response.headersSent) {
    onError(error);
    response.destroy();
    return;
  }
  if (error instanceof BodyError) {
    // A body not read to its end (too large, or a corrupt compressed stream) may still be arriving:
    // close the connection rather than read it all or leave its bytes in front of the next request.
    if (!response.req.complete) response.setHeader('connection', 'close');
    sendRequestError(response, error.status, error.message);
    return;
  }
  onError(error);
  sendRequestError(response, 500, 'Internal server error', 'INTERNAL_SERVER_ERROR');
}
