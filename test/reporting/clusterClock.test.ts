/**
 * The test clock of several replicas in one process (test/reporting/support/clusterClock.ts): time moves only while
 * every replica is quiet, and a replica awaiting its own I/O is not quiet, however long it takes in real time.
 */
import type { Command, Redis } from 'ioredis';
import { ClusterClock } from './support/clusterClock';
import { settle } from './support/tablesFakes';

describe('the cluster clock', () => {
  // Fixed test-first (issue 38 item 3, coldAsksReplicas failing about one run in four): a replica whose loop awaited
  // Redis held no timer and was taken for quiet; the clock moved on to the other replica's timer under it, so the
  // slot promised to it passed while it read when that slot was.
  it('does not move while a replica waits for its own I/O, and moves on once it lands', async () => {
    const clock = new ClusterClock(0);
    const [reading, other] = [clock.replica(), clock.replica()];
    let land: (value: number) => void = () => undefined;
    const io = new Promise<number>((resolve) => (land = resolve));
    const seen: number[] = [];
    // The other replica's loop sleeps until its next look; the reading replica reads, then sleeps a second.
    const otherLooks = other.sleep(60_000).then(() => seen.push(clock.now()));
    const read = clock.during(reading, io).then(async () => {
      seen.push(clock.now());
      await reading.sleep(1_000);
      seen.push(clock.now());
    });
    const running = clock.runUntil(Promise.all([otherLooks, read]));
    // Turns of the event loop pass (I/O is slow); the cluster's time does not.
    await settle();
    expect(clock.now()).toBe(0);
    land(1);
    await running;

    expect(seen).toEqual([0, 1_000, 60_000]);
  });

  it('counts the Redis commands a replica sends as its I/O', async () => {
    const clock = new ClusterClock(0);
    const replica = clock.replica();
    let reply: (value: string) => void = () => undefined;
    // What ioredis's sendCommand is handed: a command whose promise settles with the reply.
    const command = { promise: new Promise<string>((resolve) => (reply = resolve)) } as unknown as Command;
    const client: Pick<Redis, 'sendCommand'> = { sendCommand: (sent: Command) => sent.promise };
    clock.watchRedis(replica, client);
    const asleep = replica.sleep(5_000);
    const answer = client.sendCommand(command);
    const running = clock.runUntil(asleep);
    await settle();
    expect(clock.now()).toBe(0);
    reply('OK');
    await running;

    expect(await answer).toBe('OK');
    expect(clock.now()).toBe(5_000);
  });
});
