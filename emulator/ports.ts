import { createServer } from 'node:net';

/**
 * Fails at once when the port is taken, before a second of demo-data
 * generation: listening briefly and closing again. Port 0 (any free port) is
 * never taken. The message matches the subgraph's (src/web/ports.ts).
 */
export async function assertPortFree(port: number, variable: string): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`port ${port} is already in use (${variable}); stop what holds it or set ${variable} to a free port`)
          : error,
      ),
    );
    probe.listen(port, () => resolve());
  });
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}
