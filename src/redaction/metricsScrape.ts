import { redactCredentials } from './redactCredentials';

/** The `/metrics` scrape's redaction: a label value may quote an upstream's words, so held secrets never leave in a scrape. */
export function redactMetricsScrape(text: string): string {
  return redactCredentials(text);
}
