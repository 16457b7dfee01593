import type { Config } from '../config';

/**
 * What the configuration check says about CALLER_AUTH: which proofs a
 * /graphql request must carry, or plainly that the port is open. A
 * production target against the real hosts without CALLER_AUTH never gets
 * here: loadConfig refuses it, and the configuration check fails naming it.
 */
export function describeCallerAuth(config: Pick<Config, 'callerAuth' | 'production' | 'upstream'>): string {
  const { proofs, jwt } = config.callerAuth;
  if (proofs.length > 0) {
    const keys = jwt === undefined ? '' : `; JWT keys from ${'url' in jwt.jwks ? jwt.jwks.url : 'JWT_JWKS_FILE'}`;
    return `callers must prove ${proofs.join(' + ')} (CALLER_AUTH)${keys}`;
  }
  if (config.production && config.upstream.mode === 'remote') {
    return 'CALLER_AUTH=none: any caller that reaches the port reads the whole account (docs/security.md)';
  }
  return 'no caller proof (CALLER_AUTH unset: the development default; required in production against the real hosts)';
}
