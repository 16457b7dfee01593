import { setImmediate as nextTurn } from 'node:timers/promises';
import { BulkheadRejectedError, bulkhead, type BulkheadPolicy } from 'cockatiel';

/** Starts through Apollo's pipeline at once, across every socket of the replica. */
export const IN_FLIGHT = 4;

/** What `run` answers when MAX_SUBSCRIPTIONS starts wait already. */
export const TOO_MANY_WAITING = Symbol('tooManyWaiting');

/**
 * The replica's one pace for starting subscriptions: at most IN_FLIGHT at
 * once, each beginning in a turn of the event loop of its own, the rest
 * waiting in order (cockatiel's bulkhead). ws handed graphql-ws every frame
 * of one read at once (now one a socket a turn: ./webSocketTransport.ts), and a start (parse, validation, Apollo's plugins, the
 * resolver, the feed) is about a millisecond of CPU: a flood of subscribe
 * frames once ran thousands of starts in one turn, and health checks, queries
 * and other sockets waited seconds behind them, while thousands of pipelines
 * in flight held the memory (issue 35). Now I/O gets its turn between a few
 * starts, and a start whose subscription ended while it waited is skipped by
 * its caller before it costs anything. The house pattern for emissions is
 * src/reporting/live/fanOut.ts.
 */
export class StartTurns {
  private readonly turns: BulkheadPolicy;

  /** `maxWaiting`: starts that may wait for their turn (MAX_SUBSCRIPTIONS: no more could be open anyway). */
  constructor(maxWaiting: number) {
    this.turns = bulkhead(IN_FLIGHT, maxWaiting);
  }

  /** Runs `start` in its turn; TOO_MANY_WAITING at once, without running it, when `maxWaiting` starts wait already. */
  async run<T>(start: () => Promise<T>): Promise<T | typeof TOO_MANY_WAITING> {
    try {
      return await this.turns.execute(async () => {
        // Scheduled from a turn's microtasks, the start runs in the check phase after the loop's next poll for I/O.
        await nextTurn();
        return start();
      });
    } catch (error) {
      if (error instanceof BulkheadRejectedError) return TOO_MANY_WAITING;
      throw error;
    }
  }
}
