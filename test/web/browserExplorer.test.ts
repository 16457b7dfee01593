/**
 * LANDING_PAGE=offline in a real browser (Debian's chromium) with the network
 * cut off: the bundled GraphiQL loads from the subgraph alone, runs a
 * `recommendations` query against the emulator and shows the answer.
 */
import type { Page } from 'puppeteer-core';
import type { RunningEmulator } from '../../emulator';
import {
  chromiumAvailable,
  cutOffNetwork,
  ensureExplorerBuilt,
  launchChromium,
  saveScreenshot,
  type RunningBrowser,
} from '../support/browser';
import { startSmallEmulator, startSubgraph, type RunningSubgraph } from '../support/subgraphHttp';

const describeWithChromium = chromiumAvailable() ? describe : describe.skip;
const PAGE_TIMEOUT_MS = 20_000;

/**
 * A page-side expression: the text an element shows (Monaco renders spaces as
 * no-break spaces). A string, since the page's DOM types are not the tests'.
 */
function shownIn(selector: string): string {
  return `(document.querySelector(${JSON.stringify(selector)})?.textContent ?? '').replace(/\\u00a0/g, ' ')`;
}

/** What the response pane shows, as one string. */
function responseText(page: Page): Promise<string> {
  return page.evaluate(shownIn('.graphiql-response')) as Promise<string>;
}

describeWithChromium('the offline explorer in chromium', () => {
  let emulator: RunningEmulator;
  let subgraph: RunningSubgraph;
  let chromium: RunningBrowser;

  beforeAll(async () => {
    ensureExplorerBuilt();
    emulator = await startSmallEmulator();
    subgraph = await startSubgraph(emulator, { config: { landingPage: 'offline' } });
    chromium = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await chromium?.close();
    await subgraph?.close();
    await emulator?.close();
  });

  it('loads with nothing but the subgraph reachable, runs a recommendations query and shows the result', async () => {
    const experience = emulator.demo.experiences.find((candidate) => candidate.domain === 'dailyglobe.example')!;
    const query = `query Explorer { recommendations(experienceId: "${experience.id}", domain: "dailyglobe.example") { url title } }`;
    const page = await chromium.browser.newPage();
    const refused = await cutOffNetwork(page, [new URL(subgraph.baseUrl).origin]);
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    await page.setViewport({ width: 1600, height: 900 });

    const loaded = await page.goto(`${subgraph.graphqlUrl}?query=${encodeURIComponent(query)}`, {
      waitUntil: 'load',
      timeout: PAGE_TIMEOUT_MS,
    });
    expect(loaded?.status()).toBe(200);
    // The editor holds the linked operation once GraphiQL and Monaco have started.
    await page.waitForFunction(`${shownIn('.graphiql-query-editor')}.includes('recommendations')`, { timeout: PAGE_TIMEOUT_MS });
    await page.click('.graphiql-execute-button');
    const expected = await fetch(subgraph.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    }).then((response) => response.json() as Promise<{ data: { recommendations: { title: string }[] } }>);
    // Titles, not URLs: each fits on one line of the response pane (Monaco wraps long lines and orders lines freely).
    const titles = expected.data.recommendations.slice(0, 3).map((item) => item.title);
    expect(titles.length).toBeGreaterThan(0);
    await page
      .waitForFunction(`${JSON.stringify(titles)}.every((title) => ${shownIn('.graphiql-response')}.includes(title))`, {
        timeout: PAGE_TIMEOUT_MS,
      })
      // Saved either way: on a failure it shows what the page showed instead.
      .finally(() => saveScreenshot(page, 'explorer.png'));

    expect(await responseText(page)).toContain('"recommendations"');
    expect(refused).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('runs a subscription over graphql-ws on the same origin and shows its first result, with no other host asked', async () => {
    const query = `subscription Live { topArticles(limit: 3) { rank article { url } } }`;
    const page = await chromium.browser.newPage();
    const refused = await cutOffNetwork(page, [new URL(subgraph.baseUrl).origin]);
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    const sockets: string[] = [];
    const cdp = await page.createCDPSession();
    await cdp.send('Network.enable');
    cdp.on('Network.webSocketCreated', (event: { url: string }) => sockets.push(event.url));
    await page.setViewport({ width: 1600, height: 900 });

    await page.goto(`${subgraph.graphqlUrl}?query=${encodeURIComponent(query)}`, { waitUntil: 'load', timeout: PAGE_TIMEOUT_MS });
    await page.waitForFunction(`${shownIn('.graphiql-query-editor')}.includes('topArticles')`, { timeout: PAGE_TIMEOUT_MS });
    await page.click('.graphiql-execute-button');
    await page
      .waitForFunction(`${shownIn('.graphiql-response')}.includes('"rank"')`, { timeout: PAGE_TIMEOUT_MS })
      .finally(() => saveScreenshot(page, 'explorer-subscription.png'));

    const shown = await responseText(page);
    expect(shown).toContain('"topArticles"');
    expect(shown).not.toMatch(/not properly configured/);
    expect(sockets).toEqual([subgraph.graphqlUrl.replace(/^http/, 'ws')]);
    expect(refused).toEqual([]);
    expect(problems).toEqual([]);
  }, 60_000);

  it('cuts off the network for real: a page on another host fails and is recorded', async () => {
    const page = await chromium.browser.newPage();
    const refused = await cutOffNetwork(page, [new URL(subgraph.baseUrl).origin]);

    await expect(page.goto('https://studio.apollographql.com/sandbox', { timeout: PAGE_TIMEOUT_MS })).rejects.toThrow(
      /ERR_INTERNET_DISCONNECTED/,
    );
    expect(refused).toEqual(['https://studio.apollographql.com/sandbox']);
  });
});

/**
 * The default development page (Apollo Sandbox, from Apollo's CDN) on a
 * machine without internet: the page the subgraph serves says, by itself,
 * how to get the bundled explorer instead.
 */
describeWithChromium('the Sandbox landing page in chromium, offline', () => {
  let emulator: RunningEmulator;
  let subgraph: RunningSubgraph;
  let chromium: RunningBrowser;

  beforeAll(async () => {
    emulator = await startSmallEmulator();
    subgraph = await startSubgraph(emulator, { config: { landingPage: 'sandbox' } });
    chromium = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await chromium?.close();
    await subgraph?.close();
    await emulator?.close();
  });

  it('shows how to get the bundled explorer (LANDING_PAGE=offline), with every other host unreachable', async () => {
    const page = await chromium.browser.newPage();
    const refused = await cutOffNetwork(page, [new URL(subgraph.baseUrl).origin]);
    await page.setViewport({ width: 1200, height: 800 });

    const loaded = await page.goto(subgraph.graphqlUrl, { waitUntil: 'load', timeout: PAGE_TIMEOUT_MS });
    expect(loaded?.status()).toBe(200);
    // Shown once the page's own fade-in is over, and not covered: the Sandbox's container (over the whole page) holds no frame.
    const notice = `(() => {
      const fallback = document.querySelector('.fallback');
      if (!fallback || getComputedStyle(fallback).opacity !== '1') return '';
      const code = [...fallback.querySelectorAll('code')].find((element) => element.textContent === 'LANDING_PAGE=offline');
      if (!code) return '';
      return document.querySelector('#embeddableSandbox iframe') === null ? fallback.innerText : '';
    })()`;
    await page.waitForFunction(`${notice} !== ''`, { timeout: PAGE_TIMEOUT_MS }).finally(() => saveScreenshot(page, 'sandbox-offline.png'));

    expect(await page.evaluate(notice)).toMatch(/LANDING_PAGE=offline/);
    // The Sandbox really could not load: what was refused is Apollo's and Google's hosts, nothing of the notice.
    expect(refused.length).toBeGreaterThan(0);
    expect(
      refused.map((url) => new URL(url).hostname).every((host) => /(apollographql\.com|googleapis\.com|gstatic\.com)$/.test(host)),
    ).toBe(true);
  });
});
