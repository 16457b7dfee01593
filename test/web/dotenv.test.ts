/**
 * `.env` in the working directory configures `npm start` (README "Against a
 * standalone emulator"), and a variable already in the environment wins.
 * A real process in a temp directory, so only its `.env` is read.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dotEnvOrigin, loadDotEnv, withDotEnvOrigins } from '../../src/config/dotenv';
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

  it('with a line that has no "=" stops the process, naming .env and the line, instead of starting on the default port', async () => {
    writeFileSync(path.join(cwd, '.env'), `# subgraph settings\nPORT 4555\nEMULATOR_SCALE=0.02\n`);
    running = startSubgraphProcess({ cwd, env: {} });

    expect(await running.exited).toBe(1);
    expect(running.output()).toMatch(/\.env line 2: .*no "=".*PORT=/);
    expect(running.output()).not.toMatch(/subgraph listening/);
  });

  it('with an unquoted "#" inside a value stops the process (it would cut the value), without echoing the value', async () => {
    writeFileSync(path.join(cwd, '.env'), `PORT=0\nREPORTING_PASSWORD=abc#def\n`);
    running = startSubgraphProcess({ cwd, env: {} });

    expect(await running.exited).toBe(1);
    expect(running.output()).toMatch(/\.env line 2: REPORTING_PASSWORD: .*"#".*quote/);
    expect(running.output()).not.toMatch(/abc|def/);
  });

  it('reads a quoted value and a comment after a space', async () => {
    const port = await freePort();
    writeFileSync(path.join(cwd, '.env'), `PORT=${port} # the port\nEMULATOR_SCALE="0.02" # quoted\nPERSISTED_QUERIES_MANIFEST=\n`);
    running = startSubgraphProcess({ cwd, env: {} });

    expect(new URL(await listeningUrl(running)).port).toBe(String(port));
  });

  it('a value from .env that fails validation says it came from .env, and from which line', async () => {
    writeFileSync(path.join(cwd, '.env'), `EMULATOR_SCALE=0.02\n\nPORT=abc\n`);
    running = startSubgraphProcess({ cwd, env: {} });

    expect(await running.exited).toBe(1);
    expect(running.output()).toMatch(/PORT must be .*\(got "abc"\).*set in \.env line 3/);
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

/** The loader in this process, on a file of the test's own: what it sets, and what it refuses. */
describe('loadDotEnv', () => {
  let dir: string;
  const names = ['DOTENV_T_PLAIN', 'DOTENV_T_HASH', 'DOTENV_T_MULTI', 'DOTENV_T_SINGLE', 'DOTENV_T_SET', 'DOTENV_T_EMPTY'];

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'subgraph-dotenv-unit-'));
  });

  afterEach(() => {
    for (const name of names) delete process.env[name];
    rmSync(dir, { recursive: true, force: true });
  });

  function write(content: string): string {
    const file = path.join(dir, '.env');
    writeFileSync(file, content);
    return file;
  }

  it('sets quoted values whole (a "#" inside quotes, a value over two lines), cuts a comment after a space', () => {
    process.env.DOTENV_T_SET = 'from the environment';
    const file = write(
      [
        '# a comment',
        'DOTENV_T_PLAIN=plain value # a comment',
        'DOTENV_T_HASH="abc#def"',
        'DOTENV_T_MULTI="first',
        'second"',
        "export DOTENV_T_SINGLE='x # y'",
        'DOTENV_T_SET=from the file',
        'DOTENV_T_EMPTY=',
        '',
      ].join('\r\n'),
    );

    expect(loadDotEnv(file)).toBe(true);

    expect(names.map((name) => process.env[name])).toEqual([
      'plain value',
      'abc#def',
      'first\nsecond',
      'x # y',
      'from the environment',
      '',
    ]);
    expect(dotEnvOrigin('DOTENV_T_MULTI')).toEqual({ path: file, line: 4 });
    expect(dotEnvOrigin('DOTENV_T_EMPTY')).toEqual({ path: file, line: 8 });
    // Set by the environment, not by the file: no origin in the file.
    expect(dotEnvOrigin('DOTENV_T_SET')).toBeUndefined();
  });

  it('refuses the whole file, every malformed line named, and sets nothing', () => {
    const file = write(
      [
        'DOTENV_T_PLAIN=ok',
        'PORT 4555',
        'DOTENV_T_HASH=abc#def',
        'DOTENV_T_EMPTY=#',
        'MY VAR=1',
        'DOTENV_T_MULTI="never closed',
        'hunter2',
      ].join('\n'),
    );

    expect(() => loadDotEnv(file)).toThrow(
      new Error(
        [
          `${file} cannot be read as NAME=value lines:`,
          `  - ${file} line 2: no "=" (write PORT=value; a line without "=" is not read)`,
          `  - ${file} line 3: DOTENV_T_HASH: an unquoted value is cut at "#" (the rest would be read as a comment); quote the value (DOTENV_T_HASH="…") or put a space before the "#" of a comment`,
          `  - ${file} line 4: DOTENV_T_EMPTY: an unquoted value is cut at "#" (the rest would be read as a comment); quote the value (DOTENV_T_EMPTY="…") or put a space before the "#" of a comment`,
          `  - ${file} line 5: the text before "=" is not a variable name (letters, digits and _, not starting with a digit)`,
          `  - ${file} line 6: DOTENV_T_MULTI: the value opens a " quote that is never closed`,
          // A stray word may be a pasted password: never echoed.
          `  - ${file} line 7: no "=" (write NAME=value; a line without "=" is not read)`,
        ].join('\n'),
      ),
    );
    expect(process.env.DOTENV_T_PLAIN).toBeUndefined();
  });

  it('names the .env line of each variable a configuration problem is about', () => {
    const file = write('DOTENV_T_PLAIN=abc\n');
    loadDotEnv(file);

    expect(withDotEnvOrigins('DOTENV_T_PLAIN must be an integer (got "abc")')).toBe(
      `DOTENV_T_PLAIN must be an integer (got "abc"); DOTENV_T_PLAIN is set in ${file} line 1`,
    );
    expect(withDotEnvOrigins('DOTENV_T_SET must be an integer')).toBe('DOTENV_T_SET must be an integer');
  });
});
