import type { TokenProvider } from '../../auth/tokenProvider';
import { UpstreamError } from '../failures/upstreamError';
import type { HttpStage } from './retry';

/**
 * The bearer-token stage of the reporting API, and the one place a 401 is
 * answered: every request goes down with the current token. A 401 means the
 * token expired or was revoked before we expected (the upstream's clock is
 * the one that counts): sign in again once and repeat once, the repeat going
 * down through retry and governor like any call. A second 401 is not repeated:
 * it reaches the caller, and the token provider starts its sign-in backoff
 * (the vendor refused a token it had just issued: a refused account, not a
 * revoked token), so a broken account cannot cause a sign-in loop across
 * operations either.
 */
export function tokenRenewalStage(tokens: Pick<TokenProvider, 'getToken' | 'renew' | 'renewalRejected'>): HttpStage {
  return (next) => ({
    requestJson: async (request, call) => {
      const token = await tokens.getToken();
      const withToken = (bearer: string) =>
        next.requestJson({ ...request, headers: { ...request.headers, authorization: `Bearer ${bearer}` } }, call);
      try {
        return await withToken(token);
      } catch (error) {
        if (!isUnauthorized(error)) throw error;
        const renewed = await tokens.renew(token);
        return await withToken(renewed).catch((repeatError: unknown) => {
          if (isUnauthorized(repeatError)) tokens.renewalRejected(renewed);
          throw repeatError;
        });
      }
    },
  });
}

/** The one status this stage owns (the failure policy decides everything else about it). */
function isUnauthorized(error: unknown): boolean {
  return error instanceof UpstreamError && error.kind === 'http' && error.status === 401;
}
