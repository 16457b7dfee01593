import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from 'cors';

/** The hosted Apollo Sandbox, which queries a local subgraph straight from the browser. */
export const APOLLO_SANDBOX_ORIGIN = 'https://studio.apollographql.com';

/** How long a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

export interface CorsPolicy {
  /** Only browser requests (an `Origin` header) and preflights concern CORS; routers and servers skip it. */
  concerns(request: IncomingMessage): boolean;
  /**
   * Adds the CORS headers a browser request needs; answers a preflight
   * itself. Resolves false when the response is already sent.
   */
  apply(request: IncomingMessage, response: ServerResponse): Promise<boolean>;
}

/** Development also admits the hosted Sandbox; production admits only `CORS_ORIGINS`. */
export function allowedOrigins(production: boolean, configured: readonly string[]): string[] {
  return production ? [...configured] : [...new Set([APOLLO_SANDBOX_ORIGIN, ...configured])];
}

/**
 * The `cors` package (the one Apollo's standalone server uses) with an exact
 * list of origins: an allowed origin is echoed with `Vary: Origin`, any other
 * gets no `Access-Control-Allow-Origin`, so the browser refuses the answer.
 * Requests without an `Origin` header (routers, curl) skip it entirely.
 */
export function createCorsPolicy(origins: readonly string[]): CorsPolicy {
  const middleware = cors({ origin: [...origins], methods: ['GET', 'POST'], maxAge: PREFLIGHT_MAX_AGE_SECONDS });
  return {
    concerns: (request) => request.headers.origin !== undefined || request.method === 'OPTIONS',
    apply(request, response) {
      return new Promise((resolve, reject) => {
        // A preflight ends the response without calling next.
        const answered = () => resolve(false);
        response.once('finish', answered);
        middleware(request, response, (error?: unknown) => {
          response.off('finish', answered);
          if (error === undefined) resolve(true);
          else reject(error);
        });
      });
    },
  };
}
