import { DEMO_API_USER } from './auth/demoUsers';
import type { RunningEmulator } from './server';

/**
 * The subgraph's settings that point it at this emulator, as `NAME=value`
 * lines ready to paste into a `.env` file or a shell (`export` each). The
 * budgets are the emulator's own (profile and explicit variables applied):
 * the subgraph's real-host defaults (1 dashboard query a minute) would refuse
 * most of what a development emulator allows, and budgets above the
 * emulator's would meet its 429s. The emulator's budgets count per user, per
 * email and per client IP, so they fit one subgraph signed in as the demo
 * API user; replicas share them only through Redis (REDIS_URL).
 */
export function subgraphSettings(emulator: Pick<RunningEmulator, 'url' | 'settings'>): string[] {
  const url = reachableUrl(emulator.url);
  const { rates } = emulator.settings;
  return [
    `REPORTING_BASE_URL=${url}`,
    `RECOMMENDER_URL=${url}`,
    `REPORTING_EMAIL=${DEMO_API_USER.email}`,
    // The demo user's published password (emulator/auth/demoUsers.ts), not a secret.
    `REPORTING_PASSWORD=${DEMO_API_USER.password}`,
    `REPORTING_RATE_PER_MINUTE=${rates.reportingPerMinute}`,
    `SIGNIN_RATE_PER_MINUTE=${rates.signinPerMinute}`,
    `RENDER_RATE_PER_MINUTE=${rates.renderPerMinute}`,
  ];
}

/** Listening on every interface (EMULATOR_HOST=0.0.0.0 or ::) is reached through loopback on this machine. */
function reachableUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname === '0.0.0.0') parsed.hostname = '127.0.0.1';
  else if (parsed.hostname === '[::]') parsed.hostname = '[::1]';
  return parsed.origin;
}
