import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, sendRequestError, type RouteHandler } from './respond';

export type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Exact-path routing (one trailing slash tolerated): a map lookup per
 * request. Each handler decides which methods it accepts. Anything else is a
 * JSON 404, and a handler that throws is a JSON 500. While `draining()`,
 * every answer says `Connection: close`: keep-alive clients reconnect (to
 * another replica, once readiness has moved them) instead of holding a
 * connection that the listener's close would cut.
 */
export function createRouter(
  routes: ReadonlyMap<string, RouteHandler>,
  onError: (error: unknown) => void,
  draining: () => boolean = () => false,
): RequestListener {
  return (request, response) => {
    if (draining()) response.setHeader('connection', 'close');
    const handler = routes.get(pathOf(request.url));
    if (handler === undefined) {
      sendJson(response, 404, { error: 'Not found: GraphQL is served at /graphql' });
      return;
    }
    const fail = (error: unknown) => {
      onError(error);
      if (response.headersSent) response.destroy();
      else sendRequestError(response, 500, 'Internal server error', 'INTERNAL_SERVER_ERROR');
    };
    try {
      const answered = handler(request, response);
      if (answered instanceof Promise) answered.catch(fail);
    } catch (error) {
      fail(error);
    }
  };
}

function pathOf(url = '/'): string {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}
