// First: `.env` into the environment; then tracing patches http and graphql as they load.
import './config/dotenvAtStart';
import { runningTracing } from './observability/tracing/register';
import { DEMO_API_USER, startEmulator, type RunningEmulator } from '../emulator';
import { ConfigError, loadConfig, METRICS_DEFAULTS, type Config } from './config';
import { loadPersistedManifest, type PersistedManifest } from './graphql/limits/persistedManifest';
import { createLogger, type Logger } from './observability/logger';
import { Metrics } from './observability/metrics/metrics';
import { createMetricsServer } from './observability/metrics/metricsServer';
import { heldSecrets, Secret } from './redaction/secret';
import { composeProcess, type UpstreamTarget as ComposedTarget } from './app/composeProcess';
import { buildServer } from './web/server';
import { installShutdown, type ShutdownStep } from './web/shutdown';
import { allowedOrigins } from './web/cors';
import { assertPortsFree, listen, PortInUseError } from './web/ports';
import { redactStartupFailure } from './redaction';

/** Added to SHUTDOWN_DELAY_SECONDS: longer than the HTTP drain grace period (10 s), so a normal drain always completes first. */
const SHUTDOWN_DRAIN_ALLOWANCE_MS = 15_000;

type UpstreamTarget = ComposedTarget & { emulator?: RunningEmulator };

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config);
  const persistedManifest = loadManifestOrExit(config);
  const metrics = config.metricsEnabled ? new Metrics({ ...METRICS_DEFAULTS, callerLabel: config.metricsCallerLabel }) : undefined;
  // Readiness is 503 for this long while GraphQL still serves, so load balancers stop sending first.
  const shutdownDelayMs = config.shutdownDelaySeconds * 1000;
  // Before the embedded emulator's seconds of start-up: a taken port is reported at once.
  await assertPortsFree([
    { port: config.port, variable: 'PORT' },
    ...(config.metricsPort !== undefined && metrics !== undefined ? [{ port: config.metricsPort, variable: 'METRICS_PORT' }] : []),
  ]);
  const target = await resolveUpstream(config, logger);
  // From here on every exit (errors, logs, spans, metrics) redacts the password and the email:password pair.
  heldSecrets.holdCredentials(target.email, target.password);
  // The callers' shared secrets (CALLER_AUTH) are redacted at every exit too.
  const { routerSecret, hmac } = config.callerAuth;
  // And the key of the metrics' caller label: with it, anyone could tell whose a hashed label is.
  for (const secret of [routerSecret?.secret, routerSecret?.previous, hmac?.secret, hmac?.previous, config.metricsCallerLabel.key]) {
    if (secret !== undefined) heldSecrets.hold(secret);
  }
  // Every process-wide service, built once (src/app/composeServices.ts); the server only serves them.
  const { services, upstreams, shared, shutdownSteps } = await composeProcess(config, target, logger, metrics);
  const server = buildServer(config, services, {
    ...(shared === undefined ? {} : { redisMode: () => shared.redis.mode() }),
    // The vendor refusing our sign-in is shown, never a reason for 503: the process itself is healthy.
    readinessDetails: { signIn: () => upstreams.tokens.signInState() },
    ...(persistedManifest === undefined ? {} : { persistedManifest }),
  });

  const steps: ShutdownStep[] = [{ name: 'graphql server', run: () => server.stop() }, ...shutdownSteps];
  const tracing = runningTracing;
  if (tracing !== undefined) steps.push({ name: 'tracing', run: () => tracing.shutdown() });
  if (config.metricsPort !== undefined && metrics !== undefined) {
    // The health checks too: probes sent there never queue behind a flood of connections on PORT.
    const metricsServer = createMetricsServer(metrics.registry, server.healthRoutes);
    const metricsPort = await listen(metricsServer, config.metricsPort, 'METRICS_PORT');
    steps.push({ name: 'metrics server', run: () => new Promise<void>((resolve) => metricsServer.close(() => resolve())) });
    logger.info({ url: `http://localhost:${metricsPort}/metrics` }, 'metrics listening');
  }
  const emulator = target.emulator;
  if (emulator !== undefined) steps.push({ name: 'embedded emulator', run: () => emulator.close() });
  installShutdown({ steps, logger, timeoutMs: shutdownDelayMs + SHUTDOWN_DRAIN_ALLOWANCE_MS, exit: (code) => process.exit(code) });

  await server.start();
  const port = await listen(server.httpServer, config.port, 'PORT');
  const corsOrigins = allowedOrigins(config.production, config.corsOrigins);
  logger.info(
    {
      url: `http://localhost:${port}/graphql`,
      production: config.production,
      corsOrigins,
      tracing: tracing !== undefined,
      // Which proofs each /graphql request must carry (CALLER_AUTH): `none` says the port is open.
      callerAuth: server.callerProofs,
    },
    'subgraph listening',
  );
}

function loadConfigOrExit(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

function loadManifestOrExit(config: Config): PersistedManifest | undefined {
  const path = config.limits.persistedQueriesManifest;
  if (path === undefined) return undefined;
  try {
    return loadPersistedManifest(path);
  } catch (error) {
    process.stderr.write(`Invalid configuration:\n  - ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}

/**
 * With no upstream configured, the emulator runs in this process on a free
 * port and serves both hosts; its demo API user signs in. The log says so
 * plainly, so nobody mistakes demo data for the real platform.
 */
async function resolveUpstream(config: Config, logger: Logger): Promise<UpstreamTarget> {
  if (config.upstream.mode === 'remote') {
    const { reportingBaseUrl, recommenderUrl, email, password } = config.upstream;
    logger.info({ reportingBaseUrl, recommenderUrl, email }, 'using the configured upstream');
    return { reportingBaseUrl, recommenderUrl, email, password };
  }
  const emulator = await startEmulator({
    port: 0,
    ...config.upstream.emulator,
    logError: (error) => logger.error({ err: error }, 'embedded emulator error'),
  });
  // A warning in production: there, demo data is most likely a forgotten configuration.
  const log = config.production ? logger.warn.bind(logger) : logger.info.bind(logger);
  // The seeded experiences by id: a first `recommendations` query needs one.
  const experiences = emulator.demo.experiences.map(({ id, rankingProfile, domain }) => ({ id, profile: rankingProfile, domain }));
  log(
    { emulatorUrl: emulator.url, email: DEMO_API_USER.email, experiences },
    'no upstream configured (REPORTING_BASE_URL etc. unset): using the embedded emulator with demo data',
  );
  return {
    reportingBaseUrl: emulator.url,
    recommenderUrl: emulator.url,
    email: DEMO_API_USER.email,
    password: new Secret(DEMO_API_USER.password),
    emulator,
  };
}

main().catch((error: unknown) => {
  if (error instanceof PortInUseError) {
    process.stderr.write(`subgraph failed to start: ${error.message}\n`);
    process.exit(1);
  }
  // The credentials are held for redaction by now: a start-up failure that echoes them prints neither.
  process.stderr.write(
    redactStartupFailure(`subgraph failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`) + '\n',
  );
  process.exit(1);
});
