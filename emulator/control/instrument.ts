import { STATUS_CODES } from 'node:http';
import type { EmulatorRequest } from '../http/request';
import { errorReply, type Reply } from '../http/reply';
import type { Handler } from '../http/router';
import type { Delays } from './delays';
import type { FaultInjector } from './faults';
import type { Latency } from './latency';
import type { RequestStats } from './stats';
import type { Target } from './targets';

export interface Instruments {
  stats: RequestStats;
  faults: FaultInjector;
  delays: Delays;
  /** The profile's latency; waited through `delays`, so closing the emulator cuts it short. */
  latency: Latency;
}

/**
 * Wraps an upstream endpoint's handler: count the request (faulted and
 * rate-limited ones too), wait the profile's latency, then maybe inject a
 * fault, then run the handler.
 */
export function instrument(
  target: Target,
  distinctKey: (request: EmulatorRequest) => Promise<string> | string,
  instruments: Instruments,
  handler: Handler,
): Handler {
  return async (request) => {
    instruments.stats.record(target, await distinctKey(request));
    await instruments.delays.wait(instruments.latency.next(target));
    const fault = instruments.faults.pick(target);
    if (fault) {
      await instruments.delays.wait(fault.delayMs);
      if (fault.reset) {
        request.destroyConnection();
        return null;
      }
      if (fault.status !== null) return faultReply(fault.status);
    }
    return handler(request);
  };
}

function faultReply(status: number): Reply {
  const reason = STATUS_CODES[status] ?? 'Error';
  // Clients that honour Retry-After should not wait long for an injected fault.
  const headers = status === 429 || status === 503 ? { 'retry-after': '1' } : undefined;
  return errorReply(status, `${reason} (injected fault)`, headers);
}
