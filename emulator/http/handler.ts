import type { IncomingMessage, ServerResponse } from 'node:http';
import { EmulatorRequest } from './request';
import { errorReply, type Reply } from './reply';
import type { Router } from './router';
import { sendReply } from './send';

export interface RequestHandlerOptions {
  bodyLimitBytes: number;
  /** Where unexpected handler errors go; never given request bodies or headers. */
  logError: (error: unknown) => void;
  /** True once the server is closing: replies then end their connection instead of keeping it alive. */
  isClosing?: () => boolean;
}

/**
 * The node:http request listener: route, then send. A handler that throws gets
 * a 500 without internals, and the process keeps serving: nothing here may
 * end in an unhandled rejection, which would stop Node.
 */
export function createRequestListener(router: Router, options: RequestHandlerOptions) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const request = new EmulatorRequest(req, res, options.bodyLimitBytes);
    void dispatch(router, request, options).then((reply) => deliver(res, reply, options));
  };
}

async function dispatch(router: Router, request: EmulatorRequest, options: RequestHandlerOptions): Promise<Reply | null> {
  try {
    return await router.handle(request);
  } catch (error) {
    report(options, error);
    return errorReply(500, 'Internal server error');
  }
}

function deliver(res: ServerResponse, reply: Reply | null, options: RequestHandlerOptions): void {
  if (!reply) return;
  try {
    // A 413 leaves unread bytes on the socket; closing is the only safe end.
    if (reply.status === 413 || options.isClosing?.()) res.setHeader('connection', 'close');
    sendReply(res, reply);
  } catch (error) {
    // E.g. a body that cannot be serialized.
    report(options, error);
    if (res.headersSent) res.destroy();
    else sendReply(res, errorReply(500, 'Internal server error'));
  }
}

function report(options: RequestHandlerOptions, error: unknown): void {
  try {
    options.logError(error);
  } catch {
    // A failing logger must not take the emulator down either.
  }
}
