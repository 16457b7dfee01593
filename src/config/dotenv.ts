/**
 * `.env` in the working directory, read with Node's own parser
 * (process.loadEnvFile, Node ≥ 20.12): no dependency. A variable already in
 * the environment wins, even when empty: loadEnvFile never overrides one
 * (checked on Node 20 and 24 by test/web/dotenv.test.ts). Only the entry
 * points call this, before anything reads the environment.
 */
export function loadDotEnv(path = '.env'): boolean {
  try {
    process.loadEnvFile(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new Error(`could not read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
