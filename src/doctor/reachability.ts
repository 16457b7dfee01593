import { lookup } from 'node:dns/promises';
import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { fail, pass, type CheckResult } from './checkResult';

export interface HostToCheck {
  /** As printed, e.g. "reporting host (REPORTING_BASE_URL)". */
  check: string;
  url: string;
  /** The variable a user edits to change the URL; undefined for the embedded emulator. */
  variable: string | undefined;
}

/**
 * DNS, then TCP, then TLS for https, each step named in a failure so that a
 * user knows whether to look at the name, the network path or the
 * certificate. Done with node's own modules rather than through an HTTP
 * client, which would fold all three into one "fetch failed".
 */
export async function checkReachable(host: HostToCheck, timeoutMs: number): Promise<CheckResult> {
  const url = new URL(host.url);
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const where = host.variable === undefined ? 'the embedded emulator' : host.variable;

  let address: string;
  try {
    address = isIP(hostname) === 0 ? (await withTimeout(lookup(hostname), timeoutMs, 'ETIMEOUT')).address : hostname;
  } catch (error) {
    return fail(
      host.check,
      `${host.url}: DNS failed, ${hostname} does not resolve (${errorCode(error)})`,
      `check the host name in ${where} and this machine's DNS`,
    );
  }
  const resolved = address === hostname ? address : `${hostname} → ${address}`;

  let socket: Socket;
  try {
    socket = await openTcp(address, port, timeoutMs);
  } catch (error) {
    return fail(
      host.check,
      `${host.url}: DNS ok (${resolved}), TCP to ${address}:${port} failed (${errorCode(error)})`,
      `check the port in ${where}, that the host is up, and that no firewall or proxy blocks this machine`,
    );
  }
  if (url.protocol !== 'https:') {
    socket.destroy();
    return pass(host.check, `${host.url}: DNS ok (${resolved}), TCP ok (port ${port}), no TLS (http)`);
  }
  try {
    const tls = await startTls(socket, hostname, timeoutMs);
    const validTo = readableDate(tls.getPeerCertificate().valid_to);
    const protocol = tls.getProtocol() ?? 'TLS';
    tls.destroy();
    return pass(
      host.check,
      `${host.url}: DNS ok (${resolved}), TCP ok (port ${port}), TLS ok (${protocol}, certificate valid until ${validTo})`,
    );
  } catch (error) {
    socket.destroy();
    return fail(
      host.check,
      `${host.url}: DNS ok (${resolved}), TCP ok (port ${port}), TLS failed (${errorCode(error)})`,
      `check the host's certificate (NODE_EXTRA_CA_CERTS names a private CA), or use http:// in ${where} if the host does not speak TLS`,
    );
  }
}

/** OpenSSL's "Nov  1 00:40:24 2126 GMT" as ISO-8601 when it parses, as is otherwise. */
function readableDate(openSslDate: string): string {
  const date = new Date(openSslDate);
  return Number.isNaN(date.getTime()) ? openSslDate : date.toISOString();
}

function openTcp(host: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ host, port, timeout: timeoutMs });
    socket.once('connect', () => {
      socket.setTimeout(0);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
    });
    socket.once('error', reject);
  });
}

function startTls(socket: Socket, hostname: string, timeoutMs: number): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    // SNI must not carry an IP address (RFC 6066).
    const tls = connectTls({ socket, ...(isIP(hostname) === 0 ? { servername: hostname } : {}) });
    const timer = setTimeout(() => {
      tls.destroy();
      reject(Object.assign(new Error(`no TLS handshake within ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    tls.once('secureConnect', () => {
      clearTimeout(timer);
      tls.removeAllListeners('error');
      // Swallow errors after the check is done (the socket is destroyed right away).
      tls.on('error', () => undefined);
      resolve(tls);
    });
    tls.once('error', (error) => {
      clearTimeout(timer);
      tls.destroy();
      reject(error);
    });
  });
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number, code: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code })), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** `ECONNREFUSED`, `ENOTFOUND`, `CERT_HAS_EXPIRED`…: the code a user can search for, with a one-line reason. */
export function errorCode(error: unknown): string {
  // Duck-typed: errors from node's core modules are not `instanceof Error` inside a jest sandbox.
  if (typeof error !== 'object' || error === null) return String(error);
  const { code, reason, message } = error as { code?: unknown; reason?: unknown; message?: unknown };
  // OpenSSL's messages span lines and name its source files; its `reason` is the readable part.
  const text = typeof reason === 'string' ? reason : typeof message === 'string' ? (message.split('\n')[0] ?? '').trim() : String(error);
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}
