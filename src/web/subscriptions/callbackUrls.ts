import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import type { CallbackUrlRule } from '../../config';
import type { Context } from '../../operation/context';
import { ErrorCode } from '../../kernel/failures/errorCodes';

/**
 * Apollo's callback plugin behind SUBSCRIPTION_CALLBACK_URLS: a callback
 * subscription whose `callbackUrl` is not allowed never reaches the plugin
 * (which would send it a `check` even for a refused operation); it is
 * refused with FORBIDDEN (HTTP 403) before anything is sent or asked, so no
 * caller can make the subgraph POST to an address of its choosing (SSRF).
 */
export function withCallbackUrlPolicy(
  callback: ApolloServerPlugin<Context>,
  rules: readonly CallbackUrlRule[],
): ApolloServerPlugin<Context> {
  return {
    ...callback,
    async requestDidStart(requestContext) {
      const subscription = requestContext.request.extensions?.subscription as Record<string, unknown> | undefined;
      if (subscription === undefined || subscription === null) return callback.requestDidStart?.(requestContext);
      // Apollo's plugin reads `callback_url` when `callbackUrl` is missing: the one it would use is checked.
      const callbackUrl = subscription.callbackUrl || subscription.callback_url;
      if (isAllowedCallbackUrl(callbackUrl, rules)) return callback.requestDidStart?.(requestContext);
      return {
        async didResolveOperation() {
          throw new GraphQLError(
            `Subscription refused: extensions.subscription.callbackUrl (${originOf(callbackUrl)}) is not an allowed callback destination (SUBSCRIPTION_CALLBACK_URLS)`,
            { extensions: { code: ErrorCode.FORBIDDEN, http: { status: 403 } } },
          );
        },
      };
    },
  };
}

export function isAllowedCallbackUrl(callbackUrl: unknown, rules: readonly CallbackUrlRule[]): boolean {
  if (typeof callbackUrl !== 'string') return false;
  let url: URL;
  try {
    url = new URL(callbackUrl);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.username !== '' || url.password !== '') return false;
  return rules.some((rule) => matches(url, rule));
}

function matches(url: URL, rule: CallbackUrlRule): boolean {
  switch (rule.kind) {
    case 'loopback':
      return isLoopback(url.hostname);
    case 'host':
      return url.hostname === rule.hostname && (rule.port === undefined || portOf(url) === rule.port);
    case 'prefix':
      return url.protocol === rule.protocol && url.host === rule.host && isPathPrefix(rule.path, url.pathname);
  }
}

/** `/callback` allows `/callback` and `/callback/…`, never `/callbackevil`. */
function isPathPrefix(prefix: string, path: string): boolean {
  if (prefix.endsWith('/')) return path.startsWith(prefix);
  return path === prefix || path.startsWith(`${prefix}/`);
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

function portOf(url: URL): string {
  return url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
}

/** The destination named in the error, never its path or query (a router's callback path may hold an id or a token). */
function originOf(callbackUrl: unknown): string {
  if (typeof callbackUrl !== 'string') return 'missing';
  try {
    return new URL(callbackUrl).origin;
  } catch {
    return 'not a URL';
  }
}
