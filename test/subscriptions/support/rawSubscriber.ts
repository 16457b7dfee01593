/** graphql-transport-ws by hand, so a test can stop reading the socket (a client library always reads) or send what no library would. */
import WebSocket from 'ws';

export interface RawSubscriber {
  pause(): void;
  resume(): void;
  closed: Promise<{ code: number; reason: string }>;
}

/** Subscribes to each payload on one socket; resolves once each has had its first `next`. */
export async function openRawSubscriber(
  url: string,
  payloads: { query: string; variables: Record<string, unknown> }[],
): Promise<RawSubscriber> {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise((resolve) => socket.once('open', resolve));
  const firsts = new Set<string>();
  const allFirst = new Promise<void>((resolve) => {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; id?: string };
      if (message.type === 'connection_ack')
        payloads.forEach((payload, index) => socket.send(JSON.stringify({ id: String(index), type: 'subscribe', payload })));
      if (message.type === 'next' && message.id !== undefined) firsts.add(message.id);
      if (firsts.size === payloads.length) resolve();
    });
  });
  socket.send(JSON.stringify({ type: 'connection_init' }));
  await allFirst;
  // ws's own pause, not its net.Socket's: ws resumes the net.Socket whenever its frame parser drains (after any
  // chunk of 16 KiB or more) unless the WebSocket itself is paused, so a bare pause could go on reading.
  return { pause: () => socket.pause(), resume: () => socket.resume(), closed };
}
