import type { EmulatorRequest } from './request';
import { errorReply, type Reply } from './reply';

/** `null` means the handler already dealt with the connection (it was reset). */
export type Handler = (request: EmulatorRequest) => Promise<Reply | null> | Reply | null;

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

interface Route {
  method: Method;
  segments: string[];
  handler: Handler;
}

/**
 * Exact-path routing with `:name` segments. A path that exists under another
 * method answers 405 with `Allow`, anything else 404 — both JSON.
 */
export class Router {
  private readonly routes: Route[] = [];

  add(method: Method, pattern: string, handler: Handler): this {
    if (!pattern.startsWith('/')) throw new Error(`route pattern must start with "/", got "${pattern}"`);
    this.routes.push({ method, segments: splitPath(pattern), handler });
    return this;
  }

  async handle(request: EmulatorRequest): Promise<Reply | null> {
    const segments = splitPath(request.url.pathname);
    const allowed: Method[] = [];
    for (const route of this.routes) {
      const params = matchSegments(route.segments, segments);
      if (!params) continue;
      if (route.method !== request.method) {
        allowed.push(route.method);
        continue;
      }
      request.params = params;
      return route.handler(request);
    }
    if (allowed.length > 0) {
      return errorReply(405, `Method ${request.method} not allowed; use ${allowed.join(', ')}`, {
        allow: allowed.join(', '),
      });
    }
    return errorReply(404, `No route for ${request.method} ${request.url.pathname}`);
  }
}

function splitPath(path: string): string[] {
  return path.split('/').slice(1);
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | null {
  if (pattern.length !== actual.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i];
    const segment = actual[i];
    if (expected.startsWith(':')) {
      if (segment === '') return null;
      let decoded: string;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        return null;
      }
      params[expected.slice(1)] = decoded;
    } else if (expected !== segment) {
      return null;
    }
  }
  return params;
}
