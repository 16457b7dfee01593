/**
 * Debian's chromium driven by puppeteer-core: never a downloaded browser.
 * In CI (CI=true or BROWSER_TESTS=required) a missing chromium is installed
 * with apt-get, or the browser suites fail; elsewhere they are skipped with a
 * one-line hint.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

const CHROMIUM_PATH = '/usr/bin/chromium';
const INSTALL_TIMEOUT_MS = 300_000;
const REPO_ROOT = path.resolve(__dirname, '..', '..');
/** Git-ignored: screenshots and anything else a test leaves for a human to look at. */
const TEST_OUTPUT_DIR = path.join(REPO_ROOT, 'test-output');

const CHROMIUM_HINT = `${CHROMIUM_PATH} is missing: the browser suites are skipped (install it with: apt-get install -y chromium)`;

function installChromium(): void {
  const apt = (args: string[]) =>
    spawnSync('apt-get', args, {
      stdio: 'ignore',
      timeout: INSTALL_TIMEOUT_MS,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  apt(['update', '-qq']);
  apt(['install', '-y', '-qq', 'chromium']);
}

/** CI (CI=true, or BROWSER_TESTS=required as .ci/run sets) never skips the browser suites. */
function browserTestsRequired(): boolean {
  return process.env.CI === 'true' || process.env.BROWSER_TESTS === 'required';
}

/**
 * True when the browser suites can run. In CI a missing chromium is installed
 * first and stays true either way, so that a failed install fails the suites.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (!browserTestsRequired()) {
    process.stderr.write(`${CHROMIUM_HINT}\n`);
    return false;
  }
  installChromium();
  return true;
}

export interface RunningBrowser {
  browser: Browser;
  /** Closes the browser and removes its profile directory. */
  close(): Promise<void>;
}

export async function launchChromium(): Promise<RunningBrowser> {
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'chromium-profile-'));
  try {
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      userDataDir,
      timeout: 20_000,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        // A second cut beside the request interception: anything not on loopback goes to a closed proxy port.
        '--proxy-server=http://127.0.0.1:9',
        '--proxy-bypass-list=<-loopback>;127.0.0.1',
      ],
    });
    return {
      browser,
      async close() {
        await browser.close().catch(() => browser.process()?.kill('SIGKILL'));
        rmSync(userDataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Fails every request whose origin is not one of `allowed` (data: and blob:
 * URLs are no requests) and returns the list of those attempted, so a test
 * can assert that nothing tried to leave the machine.
 */
export async function cutOffNetwork(page: Page, allowed: readonly string[]): Promise<string[]> {
  const refused: string[] = [];
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const url = request.url();
    if (url.startsWith('data:') || url.startsWith('blob:') || allowed.includes(new URL(url).origin)) {
      void request.continue();
    } else {
      refused.push(url);
      void request.abort('internetdisconnected');
    }
  });
  return refused;
}

/** Saves a screenshot under test-output/ and prints where. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(TEST_OUTPUT_DIR, { recursive: true });
  const file = path.join(TEST_OUTPUT_DIR, name);
  await page.screenshot({ path: file as `${string}.png`, fullPage: true });
  process.stdout.write(`screenshot: ${file}\n`);
  return file;
}

/**
 * dist/explorer/, built by `npm run build` and by `npm test` before jest; a
 * jest run on its own (or after a clean) builds it here.
 */
export function ensureExplorerBuilt(): void {
  if (existsSync(path.join(REPO_ROOT, 'dist', 'explorer', 'explorer.js'))) return;
  const built = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'buildExplorer.mjs')], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (built.status !== 0) throw new Error(`building the explorer failed:\n${built.stdout}${built.stderr}`);
}
