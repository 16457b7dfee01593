import type { Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';

/** A port another process holds: one line for the operator, no stack trace. */
export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly variable: string,
  ) {
    super(`port ${port} is already in use (${variable}); stop what holds it or set ${variable} to a free port`);
    this.name = 'PortInUseError';
  }
}

export interface WantedPort {
  port: number;
  /** The environment variable that chose it, named in the error. */
  variable: string;
}

/**
 * Fails at once when a port is taken, before slow start-up work (the
 * embedded emulator builds its data for seconds): listening briefly and
 * closing again. Port 0 (any free port) is never taken.
 */
export async function assertPortsFree(ports: readonly WantedPort[]): Promise<void> {
  for (const { port, variable } of ports) {
    if (port === 0) continue;
    const probe = createServer();
    await listen(probe, port, variable);
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  }
}

/** Listens on the port; resolves with the port bound (for port 0), or rejects with PortInUseError. */
export function listen(server: Server | ReturnType<typeof createServer>, port: number, variable: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? new PortInUseError(port, variable) : error);
    server.once('error', onError);
    server.listen(port, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
