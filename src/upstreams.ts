import { TokenProvider } from './auth/tokenProvider';
import { RecommenderAPI } from './datasources/recommenderAPI';
import { ReportingAPI } from './datasources/reportingAPI';
import { createSignIn } from './datasources/signIn';
import { createAgent } from './http/agent';
import { createHttpClient } from './http/httpClient';
import type { Logger } from './logger';
import type { Metrics } from './metrics/metrics';
import { upstreamMetricsObserver } from './metrics/upstreamObserver';
import type { Secret } from './secret';

export interface UpstreamsOptions {
  reportingBaseUrl: string;
  recommenderUrl: string;
  email: string;
  password: Secret;
  timeoutMs: number;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Sockets per upstream origin. Default 32. */
  maxConnectionsPerOrigin?: number;
  /** Upstream calls, sign-ins and token renewals are recorded here when given. */
  metrics?: Pick<Metrics, 'recordUpstreamAttempt' | 'recordSignIn' | 'recordTokenRenewal'>;
}

export interface Upstreams {
  reporting: ReportingAPI;
  recommender: RecommenderAPI;
  tokens: TokenProvider;
  /** Closes the connection pool; in-flight requests finish first. */
  close(): Promise<void>;
}

/**
 * The process-wide half of the upstream access: one connection pool and one
 * token for every GraphQL request. Nothing here holds per-caller data, which
 * is what makes sharing it safe; per-request loaders are built elsewhere.
 */
export function createUpstreams(options: UpstreamsOptions): Upstreams {
  const agent = createAgent({ connections: options.maxConnectionsPerOrigin ?? 32 });
  const metrics = options.metrics;
  const http = createHttpClient({
    dispatcher: agent,
    timeoutMs: options.timeoutMs,
    logger: options.logger,
    ...(metrics === undefined ? {} : { observer: upstreamMetricsObserver(metrics) }),
  });
  const signIn = createSignIn({ baseUrl: options.reportingBaseUrl, email: options.email, password: options.password, http });
  const tokens = new TokenProvider({
    signIn: withSignInLogging(signIn, options.logger, metrics),
    onSignIn: (reason) => {
      if (reason !== 'initial') metrics?.recordTokenRenewal(reason);
    },
  });
  return {
    reporting: new ReportingAPI({ baseUrl: options.reportingBaseUrl, tokens, http }),
    recommender: new RecommenderAPI({ baseUrl: options.recommenderUrl, http }),
    tokens,
    close: () => agent.close(),
  };
}

/** Sign-ins are rare (about every two weeks) and budget-limited, so each one is worth a log line; the token never is. */
function withSignInLogging(
  signIn: () => Promise<string>,
  logger: Pick<Logger, 'info' | 'warn'>,
  metrics: Pick<Metrics, 'recordSignIn'> | undefined,
): () => Promise<string> {
  return async () => {
    try {
      const token = await signIn();
      metrics?.recordSignIn('ok');
      logger.info({ upstream: 'reporting' }, 'signed in to the reporting API');
      return token;
    } catch (error) {
      metrics?.recordSignIn('failed');
      logger.warn({ upstream: 'reporting', error: error instanceof Error ? error.message : String(error) }, 'reporting API sign-in failed');
      throw error;
    }
  };
}
