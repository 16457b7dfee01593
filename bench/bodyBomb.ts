/**
 * `npm run bench:body-bomb`: the CPU one compressed-body bomb costs the
 * subgraph. A ~1 KB brotli body (and a gzip one) that inflates to 512 MiB is
 * posted to /graphql of an in-process server (fake upstreams); the 413 comes
 * back at once, and the figure is the process's CPU time (user + system)
 * from sending until the process is quiet again (a 250 ms window with under
 * 5 ms of CPU): whatever the server keeps doing after the 413 is counted.
 * Printed per encoding, median of 3 runs, beside an idle second for reference.
 * The client runs in the same process; its share is the small part.
 */
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { brotliCompressSync, constants, createGzip } from 'node:zlib';
import { DEFAULT_CACHE_TTLS, fakeRecommender, fakeReporting, silentLogger } from '../test/support/subgraph';
import { testConfig } from '../test/support/config';
import { buildTestServer } from '../test/support/services';

const MiB = 1024 * 1024;
const INFLATED_BYTES = 512 * MiB;
const RUNS = 3;
/** The process counts as quiet once a window this long used less than QUIET_CPU_MS of CPU. */
const QUIET_WINDOW_MS = 250;
const QUIET_CPU_MS = 5;

function bombText(): Buffer {
  const text = Buffer.alloc(INFLATED_BYTES, 'x');
  text.write('{"query":"{__typename}","padding":"');
  text.write('"}', INFLATED_BYTES - 2);
  return text;
}

async function gzip(input: Buffer): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const stream = createGzip({ level: 9 });
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve) => stream.once('end', resolve));
  stream.end(input);
  await done;
  return Buffer.concat(chunks);
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

async function quiet(): Promise<void> {
  for (;;) {
    const start = process.cpuUsage();
    await sleep(QUIET_WINDOW_MS);
    if (cpuMs(start) < QUIET_CPU_MS) return;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  const text = bombText();
  const bodies = {
    br: brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    gzip: await gzip(text),
  };
  const server = buildTestServer(testConfig({ production: true, renderMaxConcurrency: 2, cache: DEFAULT_CACHE_TTLS }), {
    recommender: fakeRecommender(),
    dashboard: fakeReporting(),
    logger: silentLogger,
  });
  await server.start();
  await new Promise<void>((resolve) => server.httpServer.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.httpServer.address() as AddressInfo).port}/graphql`;

  const idleStart = process.cpuUsage();
  await sleep(1_000);
  console.log(`idle second: ${cpuMs(idleStart).toFixed(0)} ms CPU`);
  for (const [encoding, body] of Object.entries(bodies)) {
    const figures: number[] = [];
    let status = 0;
    for (let run = 0; run < RUNS; run += 1) {
      const start = process.cpuUsage();
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body,
      });
      status = response.status;
      await response.arrayBuffer();
      // Anything still inflating after the 413 shows up as CPU while waiting for quiet.
      await quiet();
      figures.push(cpuMs(start));
    }
    console.log(
      `${encoding} bomb (${body.length} bytes → ${INFLATED_BYTES / MiB} MiB): HTTP ${status}, ` +
        `${median(figures).toFixed(0)} ms CPU until quiet (median of ${RUNS})`,
    );
  }
  await server.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
