import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDemoUsers, demoCredentials, type DemoCredential } from './auth/demoUsers';
import { createDummyVerification } from './auth/passwords';
import { TokenIssuer } from './auth/tokens';
import { Clock } from './clock';
import { resolveOptions, type EmulatorOptions, type ResolvedOptions } from './config';
import type { EmulatorContext } from './context';
import { demoDataCounts, generateDemoData } from './data';
import { DEFAULT_BODY_LIMIT_BYTES } from './http/body';
import { createRequestListener } from './http/handler';
import { Router } from './http/router';
import { RateLimiter } from './limits/rateLimiter';
import { Delays } from './control/delays';
import { FaultInjector } from './control/faults';
import { Latency } from './control/latency';
import { RequestStats } from './control/stats';
import { dashboardRoute } from './routes/dashboard';
import { addExperienceRoutes } from './routes/experiences';
import { addIngestRoutes } from './routes/ingest';
import { addControlRoutes } from './routes/control';
import { renderRoute } from './routes/render';
import { signInRoute } from './routes/signin';
import { EmulatorStore, type Experience } from './store';

export interface RunningEmulator {
  /** `http://host:port`, no trailing slash: both `{base_url}` and `{recommender_url}`. */
  url: string;
  port: number;
  store: EmulatorStore;
  clock: Clock;
  demo: { users: DemoCredential[]; experiences: Experience[] };
  /** The rules it was started with, profile and explicit options applied (what `npm run emulator` prints). */
  settings: Pick<ResolvedOptions, 'profile' | 'tokenTtlSeconds' | 'rates'> & { maxRowsPerPage: number };
  /** Stops listening and ends every connection (injected delays included); resolves promptly. */
  close(): Promise<void>;
}

/** Clients like undici keep connections 4 s by default; outlive any reasonable client pool. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** How long close() lets in-flight requests finish before cutting their connections. */
const CLOSE_GRACE_MS = 500;

/** Generates the demo data, then serves both upstream hosts' routes on one port. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const resolved = resolveOptions(options);
  const clock = new Clock();
  const store = new EmulatorStore(demoDataCounts(resolved.scale).pageViews);
  generateDemoData(store, { seed: resolved.seed, scale: resolved.scale, now: clock.now() });
  const [users, dummyVerification] = await Promise.all([createDemoUsers(), createDummyVerification()]);
  store.users.push(...users);

  const delays = new Delays();
  let closing = false;
  const context: EmulatorContext = {
    store,
    clock,
    tokens: new TokenIssuer(clock, resolved.tokenTtlSeconds),
    dummyVerification,
    limits: {
      reporting: new RateLimiter(clock, resolved.rates.reportingPerMinute),
      signin: new RateLimiter(clock, resolved.rates.signinPerMinute),
      render: new RateLimiter(clock, resolved.rates.renderPerMinute),
    },
    instruments: {
      stats: new RequestStats(),
      faults: new FaultInjector(resolved.seed),
      delays,
      latency: new Latency(resolved.seed, resolved.plan.latency),
    },
    plan: { maxRowsPerPage: resolved.plan.maxRowsPerPage, unplannedMetrics: resolved.plan.unplannedMetrics },
    randomBytes: (size) => randomBytes(size),
  };

  const server = createServer(
    { keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS },
    createRequestListener(buildRouter(context), {
      bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES,
      logError: resolved.logError,
      isClosing: () => closing,
    }),
  );
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;
  server.on('clientError', (_error, socket) => {
    // Malformed HTTP: answer in JSON when the socket still can take it.
    if (socket.writable) {
      const body = JSON.stringify({ msg: 'Bad request' });
      socket.end(
        `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    } else {
      socket.destroy();
    }
  });
  const port = await listen(server, resolved.port, resolved.host);
  const displayHost = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;

  return {
    url: `http://${displayHost}:${port}`,
    port,
    store,
    clock,
    demo: { users: demoCredentials(), experiences: [...store.experiences.values()].map((e) => ({ ...e })) },
    settings: {
      profile: resolved.profile,
      tokenTtlSeconds: resolved.tokenTtlSeconds,
      rates: { ...resolved.rates },
      maxRowsPerPage: resolved.plan.maxRowsPerPage,
    },
    close: () => {
      closing = true;
      return closeServer(server, delays);
    },
  };
}

function buildRouter(context: EmulatorContext): Router {
  const router = new Router();
  router.add('POST', '/api/user/signin', signInRoute(context));
  router.add('POST', '/api/dashboard/query', dashboardRoute(context));
  router.add('GET', '/recommenderexperience/render.json', renderRoute(context));
  addExperienceRoutes(router, context);
  addIngestRoutes(router, context);
  addControlRoutes(router, context);
  return router;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server, delays: Delays): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!server.listening) {
      resolve();
      return;
    }
    const cutOff = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    server.close((error) => {
      clearTimeout(cutOff);
      if (error) reject(error);
      else resolve();
    });
    delays.cancelAll();
    server.closeIdleConnections();
  });
}
