import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

/*
 * One of the live scale bench's client processes (bench/liveScale.ts): it
 * opens its share of the subscribers, each a graphql-ws client on its own
 * WebSocket, and keeps what arrived, so the subgraph's process is measured,
 * not its clients. Driven over the IPC channel:
 *   parent → { kind: 'start', screens }       child → { kind: 'subscribed', failed }
 *   parent → { kind: 'report' }                child → { kind: 'report', screens: ScreenReport[] }
 *   parent → { kind: 'stop' }                  child disposes every client and exits.
 */

export interface ScreenPlan {
  feed: number;
  /** The replica's WebSocket URL this screen subscribes at. */
  url: string;
  query: string;
  variables: Record<string, unknown>;
}

export interface ScreenReport {
  feed: number;
  /** The replica it subscribed at. */
  url: string;
  /** [fetchedAt, arrival] of each emission with numbers, both ms since the epoch (arrival to the µs). */
  emissions: [number, number][];
  errors: string[];
}

export type ParentMessage = { kind: 'start'; screens: ScreenPlan[] } | { kind: 'report' } | { kind: 'stop' };
export type ChildMessage = { kind: 'subscribed'; failed: number } | { kind: 'report'; screens: ScreenReport[] };

/** Sockets opening at once in one process: more would only queue in the subgraph's accept backlog. */
const CONNECTING_AT_ONCE = 50;

interface Screen {
  client: Client;
  report: ScreenReport;
}

const screens: Screen[] = [];

/** Wall-clock ms with the monotonic clock's precision: the processes' arrivals are compared with each other. */
const nowMs = (): number => performance.timeOrigin + performance.now();

function connect(url: string, plan: ScreenPlan): Promise<Screen | undefined> {
  return new Promise((resolve) => {
    const report: ScreenReport = { feed: plan.feed, url, emissions: [], errors: [] };
    const client: Client = createClient({
      url,
      webSocketImpl: WebSocket,
      lazy: false,
      retryAttempts: 0,
      on: { connected: () => resolve({ client, report }) },
      onNonLazyError: () => resolve(undefined),
    });
    client.subscribe<Record<string, { fetchedAt: string }[] | null>>(
      { query: plan.query, variables: plan.variables },
      {
        next: (result) => {
          const arrived = nowMs();
          for (const error of result.errors ?? []) report.errors.push(String(error.extensions?.code ?? 'UNKNOWN'));
          const items = Object.values(result.data ?? {})[0] ?? [];
          const fetchedAt = items.reduce((oldest, item) => Math.min(oldest, Date.parse(item?.fetchedAt ?? '')), Number.POSITIVE_INFINITY);
          if (Number.isFinite(fetchedAt)) report.emissions.push([fetchedAt, arrived]);
        },
        error: (error) => report.errors.push(`closed: ${String(error)}`),
        complete: () => undefined,
      },
    );
  });
}

async function start(plans: ScreenPlan[]): Promise<number> {
  let failed = 0;
  let next = 0;
  const worker = async () => {
    while (next < plans.length) {
      const plan = plans[next++];
      const screen = await connect(plan.url, plan);
      if (screen === undefined) failed += 1;
      else screens.push(screen);
    }
  };
  await Promise.all(Array.from({ length: CONNECTING_AT_ONCE }, worker));
  return failed;
}

function send(message: ChildMessage): void {
  process.send?.(message);
}

process.on('message', (message: ParentMessage) => {
  if (message.kind === 'start') void start(message.screens).then((failed) => send({ kind: 'subscribed', failed }));
  if (message.kind === 'report') send({ kind: 'report', screens: screens.map((screen) => screen.report) });
  if (message.kind === 'stop') {
    void Promise.all(screens.map((screen) => screen.client.dispose())).then(() => process.exit(0));
  }
});
