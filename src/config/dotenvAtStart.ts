import { loadDotEnv } from './dotenv';

// A side-effect module, imported first by each entry point: imports run in order, so `.env` is in
// process.env before the tracing set-up and the config read it.
try {
  loadDotEnv();
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
