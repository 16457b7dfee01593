import type { LoadResult } from '../load';
import type { Measured } from './processes';
import type { OverheadFigures } from './scenario';

/** The median of an odd number of repetitions is one of them; with an even number, the mean of the middle two. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const us = (ms: number) => `${Math.round(ms * 1000)} µs`;
const ratio = (x: number) => x.toFixed(2);

/** Median over repetitions of ours ÷ theirs, each repetition's pair measured back to back. */
function pairedRatio<T extends LoadResult>(ours: T[], theirs: T[], pick: (r: T) => number): number {
  return median(ours.map((result, index) => pick(result) / pick(theirs[index])));
}

function cpu(results: Measured[]): string {
  return us(median(results.map((r) => r.cpuMicrosPerRequest)) / 1000);
}

function summary(results: LoadResult[]): string {
  const errors = results.reduce((sum, result) => sum + result.errors, 0);
  return (
    `${median(results.map((r) => r.throughputPerSecond)).toFixed(0)}/s, ${us(median(results.map((r) => r.p50)))} / ` +
    `${us(median(results.map((r) => r.p99)))}${errors > 0 ? ` (${errors} errors)` : ''}`
  );
}

/** Before/after rows when an older build ran in the same rotation (BENCH_PREVIOUS_BUILD). */
function previousBuild(figures: OverheadFigures): string[] {
  if (figures.pairs.every((pair) => pair.previous.length === 0)) return [];
  const cpuPerRequest = (r: Measured) => r.cpuMicrosPerRequest;
  const throughput = (r: Measured) => r.throughputPerSecond;
  return [
    'The previous build (BENCH_PREVIOUS_BUILD) in the same rotation:',
    '',
    '| in flight | previous: CPU per request; throughput, p50 / p99 | ratio CPU this ÷ previous | ratio throughput this ÷ previous | previous ÷ baseline throughput |',
    '|---|---|---|---|---|',
    ...figures.pairs.map(
      (pair) =>
        `| ${pair.concurrency} | ${cpu(pair.previous)}; ${summary(pair.previous)} | ${ratio(pairedRatio(pair.subgraph, pair.previous, cpuPerRequest))} | ` +
        `${ratio(pairedRatio(pair.subgraph, pair.previous, throughput))} | ${ratio(pairedRatio(pair.previous, pair.baseline, throughput))} |`,
    ),
    '',
  ];
}

export function overheadReport(figures: OverheadFigures): string {
  const throughput = (r: LoadResult) => r.throughputPerSecond;
  const p50 = (r: LoadResult) => r.p50;
  const p99 = (r: LoadResult) => r.p99;
  const directP50 = median(figures.direct.map(p50));
  const oneInFlight = figures.pairs.find((pair) => pair.concurrency === 1);
  const cpuPerRequest = (r: Measured) => r.cpuMicrosPerRequest;
  const lines = [
    "CPU time of each subgraph process per request (user + system, /proc; robust to the machine's other load):",
    '',
    '| in flight | baseline CPU per request | this subgraph CPU per request | ratio (this ÷ baseline) |',
    '|---|---|---|---|',
    ...figures.pairs.map(
      (pair) =>
        `| ${pair.concurrency} | ${cpu(pair.baseline)} | ${cpu(pair.subgraph)} | ${ratio(pairedRatio(pair.subgraph, pair.baseline, cpuPerRequest))} |`,
    ),
    '',
    ...previousBuild(figures),
    'Wall clock (medians of the repetitions; ratios are medians of the per-repetition ratios):',
    '',
    `| in flight | baseline: throughput, p50 / p99 | this subgraph: throughput, p50 / p99 | ratio throughput | ratio p50 | ratio p99 |`,
    '|---|---|---|---|---|---|',
    ...figures.pairs.map(
      (pair) =>
        `| ${pair.concurrency} | ${summary(pair.baseline)} | ${summary(pair.subgraph)} | ` +
        `${ratio(pairedRatio(pair.subgraph, pair.baseline, throughput))} | ${ratio(pairedRatio(pair.subgraph, pair.baseline, p50))} | ` +
        `${ratio(pairedRatio(pair.subgraph, pair.baseline, p99))} |`,
    ),
    '',
    `Direct render.json, 1 in flight: ${summary(figures.direct)}; added by this subgraph at p50: ` +
      `${oneInFlight === undefined ? 'n/a' : us(median(oneInFlight.subgraph.map(p50)) - directP50)}.`,
    '',
    `ftv1 inline trace, this subgraph at 8 in flight: without ${summary(figures.ftv1.without)}; with ${summary(figures.ftv1.with)}; ` +
      `ratio throughput ${ratio(pairedRatio(figures.ftv1.with, figures.ftv1.without, throughput))}, ` +
      `added p50 ${us(median(figures.ftv1.with.map(p50)) - median(figures.ftv1.without.map(p50)))}; ` +
      `CPU per request ${cpu(figures.ftv1.without)} without, ${cpu(figures.ftv1.with)} with.`,
    '',
  ];
  return `${lines.join('\n')}\n`;
}
