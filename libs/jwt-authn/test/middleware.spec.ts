// The library outside the API server: an Express app guarded by jwtMiddleware, with a hand-written config
// (CEL compiled on the fly), talking to a scripted TLS issuer.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { createJwtVerifier, jwtMiddleware, untrustedIssuer, type JwtVerifier, type RequestWithUser } from '../src';
import { FakeIssuer, makeKey, signJwt, type TestKey } from './fake-issuer';
import { servingTls, type ServingTls } from './tls';

jest.setTimeout(60_000);

let tls: ServingTls;
let issuer: FakeIssuer;
let key: TestKey;
let verifier: JwtVerifier;
let server: Server;
let base: string;
const refused: string[] = [];

beforeAll(async () => {
  tls = servingTls();
  issuer = new FakeIssuer(tls);
  await issuer.start();
  key = makeKey('k', 'P-256');
  issuer.discovery();
  issuer.keys([key]);
  verifier = createJwtVerifier(
    [{ issuer: { url: issuer.url, audiences: ['api'], certificateAuthority: tls.ca }, claimMappings: { username: { expression: 'claims.email' }, groups: { claim: 'roles', prefix: 'role:' } } }],
    { log: () => undefined },
  );
  await verifier.ready();
  const app = express();
  app.use(jwtMiddleware(verifier, { onRejected: (e) => refused.push(e.message) }));
  app.get('/me', (req, res) => {
    res.json((req as RequestWithUser).user);
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  verifier.close();
  await new Promise((r) => server.close(r));
  await issuer.stop();
  tls.cleanup();
});

const token = (claims: Record<string, unknown>) =>
  signJwt({ iss: issuer.url, aud: 'api', exp: Math.floor(Date.now() / 1000) + 60, ...claims }, key, 'ES256');

test('a valid token puts the user on the request', async () => {
  const res = await fetch(`${base}/me`, { headers: { authorization: `Bearer ${token({ email: 'jane@example.com', roles: ['admin'] })}` } });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ username: 'jane@example.com', uid: '', groups: ['role:admin', 'system:authenticated'], extra: {} });
});

test.each([
  ['no token', undefined, null],
  ['a garbage token', 'Bearer garbage', 'invalid bearer token'],
  ['an expired token', () => `Bearer ${token({ email: 'x@y', exp: 1 })}`, /token is expired/],
])('%s gets a 401 Status and the reason stays server-side', async (_n, header, reason) => {
  const before = refused.length;
  const h = typeof header === 'function' ? header() : header;
  const res = await fetch(`${base}/me`, { headers: h ? { authorization: h } : {} });
  expect(res.status).toBe(401);
  expect(await res.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  if (reason === null) expect(refused.length).toBe(before);
  else expect(refused[refused.length - 1]).toMatch(reason);
});

describe('unverified issuer peek (jwt-authn.md §4.1)', () => {
  const enc = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
  test.each<[string, string, string | null]>([
    ['a compact JWT', `${enc({})}.${enc({ iss: 'https://a' })}.sig`, 'https://a'],
    ['no iss', `${enc({})}.${enc({})}.sig`, ''],
    ['accounts.google.com is coalesced', `x.${enc({ iss: 'accounts.google.com' })}.y`, 'https://accounts.google.com'],
    ['two parts', `${enc({})}.${enc({ iss: 'https://a' })}`, null],
    ['four parts', `a.${enc({ iss: 'https://a' })}.b.c`, null],
    ['JSON serialization', ` {"payload":"x"}`, null],
    ['padded base64', `x.${enc({ iss: 'https://a' })}==.y`, null],
    ['standard base64 alphabet', `x.${Buffer.from(JSON.stringify({ iss: 'https://a?>>' })).toString('base64')}.y`, null],
    ['payload not JSON', `x.${enc('nope')}.y`, null],
    ['non-string iss', `x.${enc({ iss: 5 })}.y`, null],
  ])('%s', (_n, tok, want) => {
    expect(untrustedIssuer(tok)).toBe(want);
  });
});
