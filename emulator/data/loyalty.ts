/**
 * The RFV (recency, frequency, volume) score of a page view: how engaged the
 * reader was over the 30 days before it. Generated and ingested rows are scored
 * by this same function, from the reader's views with time in
 * [time − 30 days, time) — strictly earlier, so the view itself never counts.
 */

const DAY_MS = 86_400_000;
export const RFV_WINDOW_MS = 30 * DAY_MS;

/** Views in the window saturate here: a reader with 50 views is as frequent as one with 500. */
const FREQUENCY_CAP = 50;
/** Reading time in the window saturates at three hours. */
const VOLUME_CAP_SECONDS = 3 * 3600;

export interface PriorActivity {
  /** Views of the reader in the window. */
  views: number;
  /** Their summed duration in seconds. */
  durationSeconds: number;
  /** Time of the latest of them (epoch ms); ignored when `views` is 0. */
  lastViewTime: number;
}

/**
 * 0 for a reader without views in the window; otherwise up to 10: the mean of
 * recency (1 right after a view, halving after a day), frequency and volume,
 * each in 0..1, times 10, rounded to two decimals.
 */
export function rfvScore(prior: PriorActivity, time: number): number {
  if (prior.views === 0) return 0;
  const daysSince = Math.max(0, time - prior.lastViewTime) / DAY_MS;
  const recency = 1 / (1 + daysSince);
  const frequency = Math.min(prior.views, FREQUENCY_CAP) / FREQUENCY_CAP;
  const volume = Math.min(prior.durationSeconds, VOLUME_CAP_SECONDS) / VOLUME_CAP_SECONDS;
  return Math.round(((recency + frequency + volume) / 3) * 1000) / 100;
}
