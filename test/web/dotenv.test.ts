/**
 * `.env` in the working directory configures `npm start` (README "Against a
 * standalone emulator"), and a variable already in the environment wins.
 * A real process in a temp directory, so only its `.env` is read.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { listeningUrl, startSubgraphProcess, type SubgraphProcess } from '../support/subgraphProcess';

/** A port free right now (the OS picks it), for a variable that must name one. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

describe('.env', () => {
  let cwd: string;
  let running: SubgraphProcess | undefined;

  beforeEach(() => {
    cwd = mkdtempSync(path.join(tmpdir(), 'subgraph-dotenv-'));
  });

  afterEach(async () => {
    await running?.kill();
    running = undefined;
    rmSync(cwd, { recursive: true, force: true });
  });

  it('sets PORT for the subgraph started in that directory', async () => {
    const port = await freePort();
    writeFileSync(path.join(cwd, '.env'), `# subgraph settings\nPORT=${port}\nEMULATOR_SCALE=0.02\n`);
    running = startSubgraphProcess({ cwd, env: {} });

    const url = await listeningUrl(running);

    expect(new URL(url).port).toBe(String(port));
    expect((await fetch(new URL('/health/live', url))).status).toBe(200);
  });

  it('does not override a variable already set in the environment', async () => {
    const [fromFile, fromEnvironment] = [await freePort(), await freePort()];
    writeFileSync(path.join(cwd, '.env'), `PORT=${fromFile}\nEMULATOR_SCALE=0.02\n`);
    running = startSubgraphProcess({ cwd, env: { PORT: String(fromEnvironment) } });

    const url = await listeningUrl(running);

    expect(new URL(url).port).toBe(String(fromEnvironment));
  });

  it('is optional: without one the defaults apply', async () => {
    running = startSubgraphProcess({ cwd, env: { PORT: '0', EMULATOR_SCALE: '0.02' } });

    const url = await listeningUrl(running);

    expect((await fetch(new URL('/health/live', url))).status).toBe(200);
  });

  it('that cannot be read stops the process with a message naming it', async () => {
    // A directory where the file should be: readable by nobody as a file.
    const unreadable = path.join(cwd, '.env');
    mkdirSync(unreadable);
    running = startSubgraphProcess({ cwd, env: { PORT: '0' } });

    expect(await running.exited).toBe(1);
    expect(running.output()).toMatch(/could not read \.env/);
  });
});
