/**
 * Keys, tokens and a JWKS endpoint for the caller-proof tests: keys made by
 * jose in the test, the JWKS served by a real HTTP server on an ephemeral
 * port that counts its fetches.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import type { CallerAuthConfig } from '../../src/config';
import { Secret } from '../../src/redaction/secret';

export const ISSUER = 'https://idp.example/';
export const AUDIENCE = 'analytics-subgraph';

export interface SigningKey {
  kid: string;
  privateKey: KeyLike;
  publicJwk: JWK;
}

export async function signingKey(kid: string, alg = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export interface TokenOptions {
  claims?: Record<string, unknown>;
  issuer?: string;
  audience?: string;
  /** Seconds from now; negative: already expired. */
  expiresIn?: number;
  alg?: string;
}

export function signToken(key: SigningKey, options: TokenOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ ...options.claims })
    .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: key.kid })
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setSubject('user-1')
    .setIssuedAt(now - 10)
    .setExpirationTime(now + (options.expiresIn ?? 300))
    .sign(key.privateKey);
}

/** A token of exactly these claims (no iat, exp or anything else added), signed by `key`: for the lifetime checks. */
export function tokenOfClaims(key: SigningKey, claims: Record<string, unknown>): Promise<string> {
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'user-1', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: key.kid })
    .sign(key.privateKey);
}

/** An unsecured token (`alg: none`) with otherwise valid claims: what a forger sends. */
export function unsignedToken(claims: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const payload = { iss: ISSUER, aud: AUDIENCE, sub: 'user-1', exp: now + 300, ...claims };
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(payload)}.`;
}

export interface JwksServer {
  url: string;
  /** How many times the JWKS was fetched. */
  fetches(): number;
  close(): Promise<void>;
}

export async function serveJwks(keys: readonly SigningKey[]): Promise<JwksServer> {
  let fetches = 0;
  const server: Server = createServer((_request, response) => {
    fetches += 1;
    const body = JSON.stringify({ keys: keys.map((key) => key.publicJwk) });
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    fetches: () => fetches,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export const ROUTER_SECRET = 'router-secret-0123456789abcdef';
export const HMAC_SECRET = 'hmac-secret-fedcba9876543210';

/** CALLER_AUTH's parsed form for tests that build the server directly. */
export function callerAuth(proofs: CallerAuthConfig['proofs'], jwt?: CallerAuthConfig['jwt']): CallerAuthConfig {
  return {
    proofs,
    ...(proofs.includes('router-secret') ? { routerSecret: { header: 'x-router-secret', secret: new Secret(ROUTER_SECRET) } } : {}),
    ...(proofs.includes('hmac') ? { hmac: { secret: new Secret(HMAC_SECRET) } } : {}),
    ...(jwt === undefined ? {} : { jwt }),
  };
}

export interface PostOptions {
  headers?: Record<string, string>;
  variables?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
}

export interface GraphQLAnswer {
  status: number;
  headers: Headers;
  text: string;
  body: {
    data?: Record<string, unknown> | null;
    errors?: Array<{ message: string; path?: Array<string | number>; extensions?: Record<string, unknown> }>;
  };
}

export async function postGraphQL(url: string, query: string, options: PostOptions = {}): Promise<GraphQLAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify({
      query,
      ...(options.variables === undefined ? {} : { variables: options.variables }),
      ...(options.extensions === undefined ? {} : { extensions: options.extensions }),
    }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) as GraphQLAnswer['body'] };
}

/** How a JWKS endpoint misbehaves: each a failure the subgraph must answer with 503, never 401. */
export type JwksFault = 'status-500' | 'not-json' | 'no-keys' | 'silent' | 'stalled-body' | 'huge';

export interface FaultyJwksServer extends JwksServer {
  /** What the endpoint does from now on: a fault, or `ok` (serves the keys). */
  set(mode: JwksFault | 'ok'): void;
  /** Bytes of the last `huge` body written before the reader hung up (or all of them). */
  hugeBytesSent(): number;
  /** Resolves when the last `huge` body's connection closed (the reader stopped, or the body ended). */
  hugeClosed(): Promise<void>;
}

/** The size of the `huge` fault's body: 50 MB of one JSON key set, written in 64 KB chunks as the reader takes them. */
export const HUGE_JWKS_BYTES = 50 * 1024 * 1024;

/** A JWKS endpoint on an ephemeral port that answers as `set` says: the keys, or one of the JwksFault failures. */
export async function serveFaultyJwks(keys: readonly SigningKey[]): Promise<FaultyJwksServer> {
  let mode: JwksFault | 'ok' = 'ok';
  let fetches = 0;
  let hugeSent = 0;
  let hugeDone: Promise<void> = Promise.resolve();
  const server: Server = createServer((_request, response) => {
    fetches += 1;
    const keySet = JSON.stringify({ keys: keys.map((key) => key.publicJwk) });
    switch (mode) {
      case 'ok':
        response.writeHead(200, { 'content-type': 'application/json' }).end(keySet);
        return;
      case 'status-500':
        response.writeHead(500, { 'content-type': 'application/json' }).end(keySet);
        return;
      case 'not-json':
        response.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
        return;
      case 'no-keys':
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"issuer":"https://idp.example/"}');
        return;
      case 'silent':
        return; // never answers
      case 'stalled-body':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"keys":[');
        return; // the rest never comes
      case 'huge':
        hugeSent = 0;
        hugeDone = new Promise((resolve) => response.once('close', resolve));
        writeHugeBody(response, (bytes) => (hugeSent += bytes));
        return;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    fetches: () => fetches,
    set: (next) => {
      mode = next;
    },
    hugeBytesSent: () => hugeSent,
    hugeClosed: () => hugeDone,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** `{"keys":[],"padding":"xxxx…"}` of HUGE_JWKS_BYTES, written chunk by chunk only as fast as the reader drains it. */
function writeHugeBody(response: ServerResponse, sent: (bytes: number) => void): void {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const head = Buffer.from('{"keys":[],"padding":"');
  const tail = Buffer.from('"}');
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': HUGE_JWKS_BYTES });
  response.write(head);
  sent(head.length);
  let left = HUGE_JWKS_BYTES - head.length - tail.length;
  const pump = (): void => {
    while (left > 0 && !response.destroyed) {
      const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= part.length;
      sent(part.length);
      if (!response.write(part)) {
        response.once('drain', pump);
        return;
      }
    }
    if (left === 0 && !response.destroyed) {
      response.end(tail);
      sent(tail.length);
    }
  };
  pump();
}
