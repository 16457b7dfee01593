import type { TokenProvider } from '../../auth/tokenProvider';
import { UpstreamError } from '../failures/upstreamError';
import type { HttpStage } from './retry';

/**
 * The bearer-token stage of the reporting API, and the one place a 401 is
 * answered: every request goes down with the current token. A 401 means the
 * token expired or was revoked before we expected (the upstream's clock is
 * the one that counts): sign in again once and repeat once, the repeat going
 * down through retry and governor like any call. A second 401 is not repeated:
 * it reaches the caller, so a broken account cannot cause a sign-in loop.
 */
export function tokenRenewalStage(tokens: Pick<TokenProvider, 'getToken' | 'renew'>): HttpStage {
  return (next) => ({
    requestJson: async (request, call) => {
      const token = await tokens.getToken();
      const withToken = (bearer: string) =>
        next.requestJson({ ...request, headers: { ...request.headers, authorization: `Bearer ${bearer}` } }, call);
      try {
        return await withToken(token);
      } catch (error) {
        if (!isUnauthorized(error)) throw error;
        return withToken(await tokens.renew(token));
      }
    },
  });
}

/** The one status this stage owns (the failure policy decides everything else about it). */
function isUnauthorized(error: unknown): boolean {
  return error instanceof UpstreamError && error.kind === 'http' && error.status === 401;
}
