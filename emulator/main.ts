import { DEFAULT_MAIN_PORT, emulatorOptionsFromEnv } from './config';
import { assertPortFree } from './ports';
import { startEmulator } from './server';
import { subgraphSettings } from './subgraphSettings';

/** `npm run emulator`: the emulator on EMULATOR_PORT (default 4010) until SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  const options = emulatorOptionsFromEnv(process.env);
  const port = options.port ?? DEFAULT_MAIN_PORT;
  // Before a second of demo-data generation: a taken port is one line at once.
  await assertPortFree(port, 'EMULATOR_PORT');
  const emulator = await startEmulator({ ...options, port });
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;

  const { profile, rates, tokenTtlSeconds, maxRowsPerPage } = emulator.settings;
  const lines = [
    `Emulator listening on ${emulator.url} (reporting and recommender hosts) — started in ${elapsedMs.toFixed(0)} ms`,
    `Profile: ${profile} — budgets per minute: reporting ${rates.reportingPerMinute} per user, sign-in ${rates.signinPerMinute} per email, ` +
      `render.json ${rates.renderPerMinute} per IP; tokens last ${tokenTtlSeconds} s; at most ${maxRowsPerPage} rows per page`,
    `Data: ${emulator.store.articles.length} articles, ${emulator.store.clients.size} readers, ${emulator.store.views.length} page views`,
    'Demo users:',
    ...emulator.demo.users.map((u) => `  ${u.email} / ${u.password} — ${u.note}`),
    'Seeded experiences:',
    ...emulator.demo.experiences.map((e) => `  ${e.id}  ${e.rankingProfile.padEnd(12)} ${e.domain}  (${e.name})`),
    '',
    '# --- subgraph settings for this emulator: paste into .env (or export each) before npm start ---',
    ...subgraphSettings(emulator),
    '# --- end of subgraph settings ---',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    process.stdout.write(`${signal}: closing the emulator\n`);
    emulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`emulator: error while closing: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`emulator: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
