/**
 * Who the caller is (the id the budget's fair share will count): the JWT's
 * azp or client_id, else its sub; the apollographql-client-name header only
 * when the operator says the router sets it (CALLER_NAME_HEADER_TRUSTED,
 * behind a router-secret or hmac proof); else the one `unverified` id that
 * every caller without a proof of identity shares. The header is otherwise
 * only a label (`clientName`). With its scopes and sites. Checked through the
 * gate itself, on requests built in the test.
 */
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { callerIdOf, scopesOf, sitesOf } from '../../src/auth/callers/caller';
import { signParams } from '../../src/auth/callers/hmacSignature';
import { Secret } from '../../src/redaction/secret';
import { CallerGate, type Admission } from '../../src/web/callerGate';
import { AUDIENCE, callerAuth, HMAC_SECRET, ISSUER, ROUTER_SECRET, signingKey, signToken, type SigningKey } from './support';

function request(headers: Record<string, string>, method = 'POST', url = '/graphql'): IncomingMessage {
  const message = new IncomingMessage(new Socket());
  message.method = method;
  message.url = url;
  message.headers = headers;
  return message;
}

function callerOf(admission: Admission) {
  if ('refusal' in admission) throw new Error(`refused: ${admission.refusal.problems.join('; ')}`);
  return admission.caller;
}

const QUERY = '{ __typename }';
const body =
  (extensions: Record<string, unknown> = {}) =>
  async () => ({ query: QUERY, extensions });

let key: SigningKey;
beforeAll(async () => {
  key = await signingKey('key-1');
});

describe('callerIdOf', () => {
  test('azp, then client_id, then sub, then a trusted client name, then unverified', () => {
    expect(callerIdOf({ azp: 'newsroom-app', client_id: 'other', sub: 'user-1' }, 'router-client')).toBe('newsroom-app');
    expect(callerIdOf({ client_id: 'widgets', sub: 'user-1' }, 'router-client')).toBe('widgets');
    expect(callerIdOf({ sub: 'user-1' }, 'router-client')).toBe('user-1');
    expect(callerIdOf(undefined, 'router-client')).toBe('router-client');
    expect(callerIdOf({ azp: '' }, undefined)).toBe('unverified');
    expect(callerIdOf({ sub: 'x'.repeat(500) }, undefined)).toHaveLength(128);
  });

  test('scopes from scope (space-separated) and scp (an array); sites lower-cased, none without the claim', () => {
    expect([...scopesOf({ scope: 'reporting:read  revenue:read', scp: ['profile'] })].sort()).toEqual([
      'profile',
      'reporting:read',
      'revenue:read',
    ]);
    expect([...sitesOf({ sites: ['DailyGlobe.example', 'metrotimes.example'] }, 'sites')]).toEqual([
      'dailyglobe.example',
      'metrotimes.example',
    ]);
    expect([...sitesOf({ sites: 'a.example, b.example' }, 'sites')]).toEqual(['a.example', 'b.example']);
    expect(sitesOf({}, 'sites').size).toBe(0);
  });
});

describe('the caller the gate admits', () => {
  test('no proof required: unverified, whatever client name is claimed (kept as a label only), with every scope and site', async () => {
    const caller = callerOf(await new CallerGate({ proofs: [] }).admit(request({ 'apollographql-client-name': 'spoofed' }), body()));
    expect(caller).toEqual({ id: 'unverified', clientName: 'spoofed' });
  });

  test('behind the router secret: the client name is a label, never an identity; every such caller is unverified', async () => {
    const gate = new CallerGate(callerAuth(['router-secret']));
    const named = (name: string) => request({ 'x-router-secret': ROUTER_SECRET, 'apollographql-client-name': name });
    expect(callerOf(await gate.admit(named('homepage-widgets'), body()))).toEqual({ id: 'unverified', clientName: 'homepage-widgets' });
    expect(callerOf(await gate.admit(named('renamed-1'), body())).id).toBe('unverified');
  });

  test('behind the router secret with CALLER_NAME_HEADER_TRUSTED: the router-set name is the identity', async () => {
    const gate = new CallerGate({ ...callerAuth(['router-secret']), clientNameTrusted: true });
    const caller = callerOf(
      await gate.admit(request({ 'x-router-secret': ROUTER_SECRET, 'apollographql-client-name': 'homepage-widgets' }), body()),
    );
    expect(caller).toEqual({ id: 'homepage-widgets', clientName: 'homepage-widgets' });
  });

  test('behind the HMAC signature: the client name counts only when trusted', async () => {
    const signature = signParams({ query: QUERY }, new Secret(HMAC_SECRET));
    const admit = (gate: CallerGate) =>
      gate.admit(request({ 'apollographql-client-name': 'editor-app' }), body({ 'hmac-signature': signature }));
    expect(callerOf(await admit(new CallerGate(callerAuth(['hmac'])))).id).toBe('unverified');
    expect(callerOf(await admit(new CallerGate({ ...callerAuth(['hmac']), clientNameTrusted: true }))).id).toBe('editor-app');
  });

  test('with a JWT: its azp, its scopes and its sites', async () => {
    const gate = new CallerGate({
      proofs: ['jwt'],
      jwt: { jwks: { keySet: { keys: [key.publicJwk] } }, issuer: ISSUER, audience: AUDIENCE, sitesClaim: 'sites' },
    });
    const token = await signToken(key, { claims: { azp: 'newsroom-app', scope: 'reporting:read', sites: ['dailyglobe.example'] } });
    const caller = callerOf(
      await gate.admit(request({ authorization: `Bearer ${token}`, 'apollographql-client-name': 'spoofed' }), body()),
    );
    expect(caller.id).toBe('newsroom-app');
    expect([...(caller.scopes ?? [])]).toEqual(['reporting:read']);
    expect([...(caller.sites ?? [])]).toEqual(['dailyglobe.example']);
  });

  test('a landing-page GET executes nothing and needs no proof; a GET operation needs the proofs like a POST', async () => {
    const gate = new CallerGate(callerAuth(['router-secret']));
    expect(callerOf(await gate.admit(request({ accept: 'text/html' }, 'GET', '/graphql'), body())).id).toBe('unverified');
    const operation = await gate.admit(request({}, 'GET', `/graphql?query=${encodeURIComponent(QUERY)}`), body());
    expect('refusal' in operation && operation.refusal.problems).toEqual(['missing the x-router-secret header']);
  });

  test('a GET operation signed by the gateway: the signature is read from its extensions parameter', async () => {
    const signature = signParams({ query: QUERY }, new Secret(HMAC_SECRET));
    const url = `/graphql?query=${encodeURIComponent(QUERY)}&extensions=${encodeURIComponent(JSON.stringify({ 'hmac-signature': signature }))}`;
    const gate = new CallerGate(callerAuth(['hmac']));
    expect('caller' in (await gate.admit(request({}, 'GET', url), async () => undefined))).toBe(true);
    const tampered = url.replace(encodeURIComponent(QUERY), encodeURIComponent('{ recommendations { url } }'));
    expect('refusal' in (await gate.admit(request({}, 'GET', tampered), async () => undefined))).toBe(true);
  });
});
