/**
 * A stand-in for one `redis-sentinel`, on a loopback ephemeral port, for
 * races a real one cannot be made to hit on cue: it names the primary the
 * test sets (SENTINEL GET-MASTER-ADDR-BY-NAME), can hold that answer until
 * the test releases it, and publishes `+switch-master` to its subscribers
 * (ioredis's failover detector) when the test says so. Any other command is
 * answered `+OK` (CLIENT SETINFO and the like); SENTINEL SENTINELS is empty;
 * HELLO is refused (it speaks RESP2 only).
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface FakeSentinel {
  /** `{ host, port }`, as REDIS_SENTINELS names a node. */
  node: { host: string; port: number };
  /** The primary it names from now on. */
  namePrimary(port: number): void;
  /** Resolves when the next GET-MASTER-ADDR-BY-NAME arrives; its answer waits until `release` is called. */
  holdNextAsk(): Promise<{ release(): void }>;
  /** `+switch-master` to every subscriber, as sentinels announce a failover. */
  announceSwitch(name: string, fromPort: number, toPort: number): void;
  /** Resolves once `count` connections subscribed to `+switch-master`. */
  subscribers(count: number): Promise<void>;
  /** Resolves once no connection is subscribed any more (the failover detector let go of its sentinels). */
  noSubscribers(): Promise<void>;
  close(): Promise<void>;
}

const bulk = (text: string) => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
const array = (items: string[]) => `*${items.length}\r\n${items.map(bulk).join('')}`;

/** Whole commands (RESP arrays of bulk strings) at the start of `buffer`, and what is left after them. */
function parseCommands(buffer: string): { commands: string[][]; rest: string } {
  const commands: string[][] = [];
  let at = 0;
  for (;;) {
    const parsed = parseOne(buffer, at);
    if (parsed === undefined) return { commands, rest: buffer.slice(at) };
    commands.push(parsed.command);
    at = parsed.next;
  }
}

function parseOne(buffer: string, start: number): { command: string[]; next: number } | undefined {
  const header = buffer.indexOf('\r\n', start);
  if (header < 0 || buffer[start] !== '*') return undefined;
  const count = Number(buffer.slice(start + 1, header));
  const command: string[] = [];
  let at = header + 2;
  for (let index = 0; index < count; index += 1) {
    const lengthEnd = buffer.indexOf('\r\n', at);
    if (lengthEnd < 0) return undefined;
    const length = Number(buffer.slice(at + 1, lengthEnd));
    if (buffer.length < lengthEnd + 2 + length + 2) return undefined;
    command.push(buffer.slice(lengthEnd + 2, lengthEnd + 2 + length));
    at = lengthEnd + 2 + length + 2;
  }
  return { command, next: at };
}

export async function startFakeSentinel(primaryPort: number): Promise<FakeSentinel> {
  let primary = primaryPort;
  const sockets = new Set<Socket>();
  const subscribed = new Set<Socket>();
  const subscriberWatchers: { count: number; reached: () => void }[] = [];
  const goneWatchers: (() => void)[] = [];
  let holding: ((held: { release(): void }) => void) | undefined;

  const answer = (socket: Socket, command: string[]) => {
    const [name = '', sub = ''] = command.map((part) => part.toLowerCase());
    if (name === 'sentinel' && sub === 'get-master-addr-by-name') {
      const reply = () => socket.write(array(['127.0.0.1', String(primary)]));
      const hold = holding;
      holding = undefined;
      if (hold === undefined) reply();
      else hold({ release: reply });
      return;
    }
    if (name === 'sentinel' && sub === 'sentinels') return void socket.write('*0\r\n');
    // RESP2 only, as Redis before 6: its pushes are plain arrays, which a RESP3 client would not take for messages.
    if (name === 'hello') return void socket.write('-NOPROTO unsupported protocol version\r\n');
    if (name === 'subscribe') {
      subscribed.add(socket);
      socket.write(`*3\r\n${bulk('subscribe')}${bulk(command[1] ?? '')}:1\r\n`);
      for (const watcher of [...subscriberWatchers]) {
        if (subscribed.size < watcher.count) continue;
        subscriberWatchers.splice(subscriberWatchers.indexOf(watcher), 1);
        watcher.reached();
      }
      return;
    }
    socket.write('+OK\r\n');
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    let buffer = '';
    socket.on('data', (chunk: Buffer) => {
      const { commands, rest } = parseCommands(buffer + chunk.toString('utf8'));
      buffer = rest;
      for (const command of commands) answer(socket, command);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      subscribed.delete(socket);
      if (subscribed.size === 0) for (const gone of goneWatchers.splice(0)) gone();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    node: { host: '127.0.0.1', port },
    namePrimary(next) {
      primary = next;
    },
    holdNextAsk() {
      return new Promise((resolve) => (holding = resolve));
    },
    announceSwitch(name, fromPort, toPort) {
      const text = `${name} 127.0.0.1 ${fromPort} 127.0.0.1 ${toPort}`;
      for (const socket of subscribed) socket.write(`*3\r\n${bulk('message')}${bulk('+switch-master')}${bulk(text)}`);
    },
    subscribers(count) {
      if (subscribed.size >= count) return Promise.resolve();
      return new Promise((reached) => subscriberWatchers.push({ count, reached }));
    },
    noSubscribers() {
      if (subscribed.size === 0) return Promise.resolve();
      return new Promise((gone) => goneWatchers.push(gone));
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
