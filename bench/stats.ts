/** Latency summaries for the benchmark report. */
export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

export function summarize(samplesMs: number[]): LatencySummary {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const sum = sorted.reduce((s, x) => s + x, 0);
  return {
    count: sorted.length,
    p50: at(0.5),
    p99: at(0.99),
    mean: sorted.length ? sum / sorted.length : 0,
    max: sorted[sorted.length - 1] ?? 0,
  };
}

export function fmt(ms: number): string {
  return `${ms.toFixed(2)} ms`;
}
