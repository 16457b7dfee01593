import { benchResponseCache, responseCacheReport, startResponseCacheTargets } from './responseCacheBench';

/*
 * `npm run bench:response-cache` (also the last part of `npm run bench`):
 * the response cache on repeated identical public operations; prints a
 * Markdown section for bench/README.md.
 */
async function main(): Promise<void> {
  const targets = await startResponseCacheTargets();
  try {
    process.stdout.write('\n### Response cache: repeated identical public operations\n\n');
    process.stdout.write(responseCacheReport(await benchResponseCache(targets), targets.offHonoured));
  } finally {
    await targets.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
