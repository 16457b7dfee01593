import type { TokenProvider } from '../../auth/tokenProvider';
import { UpstreamError } from '../../kernel/failures/upstreamError';
import type { HttpStage } from './retry';

/**
 * Renewals one request may make: the first may bring a token another replica
 * shared that has expired too (it signed in a lapse ago, and this replica sat
 * that lapse out); the second then signs in, and a 401 on that token is a
 * refusal. The third is slack for a replica that shared yet another token
 * meanwhile; never a loop.
 */
const MAX_RENEWALS = 3;

/**
 * The bearer-token stage of the reporting API, and the one place a 401 is
 * answered: every request goes down with the current token. A 401 means the
 * token expired or was revoked before we expected (the upstream's clock is
 * the one that counts): renew it and repeat, the repeat going down through
 * retry and governor like any call. A 401 on the token this process's own
 * sign-in just issued, on its first use, is not repeated: it reaches the
 * caller, and the token provider starts its sign-in backoff (the vendor
 * refused a token it had just issued: a refused account, not an expired
 * token), so a broken account cannot cause a sign-in loop across operations
 * either. A token that served calls, or one another replica shared, simply
 * expired, however recently it was obtained.
 */
export function tokenRenewalStage(tokens: Pick<TokenProvider, 'getToken' | 'renew' | 'served' | 'refused'>): HttpStage {
  return (next) => ({
    requestJson: async (request, call) => {
      let token = await tokens.getToken();
      for (let renewals = 0; ; renewals += 1) {
        try {
          const answer = await next.requestJson({ ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } }, call);
          tokens.served(token);
          return answer;
        } catch (error) {
          if (!isUnauthorized(error) || tokens.refused(token) || renewals === MAX_RENEWALS) throw error;
          token = await tokens.renew(token);
        }
      }
    },
  });
}

/** The one status this stage owns (the failure policy decides everything else about it). */
function isUnauthorized(error: unknown): boolean {
  return error instanceof UpstreamError && error.kind === 'http' && error.status === 401;
}
