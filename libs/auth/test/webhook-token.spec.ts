import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { webhookTokenAuthenticator } from '../src';
import { TestPki, type KeyPair } from './pki';

// A real TLS server playing the API server's tokenreviews endpoint.
let pki: TestPki;
let ca: KeyPair;
let client: KeyPair;
let server: Server;
let url: string;
const seen: { auth?: string; body: Record<string, unknown>; cn?: string }[] = [];

beforeAll(async () => {
  pki = new TestPki();
  ca = pki.ca('ca');
  const srv = pki.server('server', 'ca');
  client = pki.client('node', 'ca', '/CN=system:node:n1/O=system:nodes');
  server = createServer({ ...srv, ca: ca.cert, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const review = JSON.parse(body) as { spec: { token: string } };
      const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
      seen.push({ auth: req.headers.authorization, body: review as unknown as Record<string, unknown>, cn: peer?.subject?.CN as string | undefined });
      const token = review.spec.token;
      if (token === 'http-500') {
        res.statusCode = 500;
        res.end('boom');
        return;
      }
      const status =
        token === 'good'
          ? { authenticated: true, user: { username: 'jane', uid: 'u1', groups: ['dev', 'system:authenticated'], extra: { k: ['v'] } } }
          : token === 'err'
            ? { authenticated: false, error: 'token expired' }
            : { authenticated: false };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', status }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/apis/authentication.k8s.io/v1/tokenreviews`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  pki.cleanup();
});

test('an accepted token gives the reviewed user; the caller authenticates with its certificate', async () => {
  const a = webhookTokenAuthenticator({ url, ca: ca.cert, cert: client.cert, key: client.key });
  expect(await a.authenticateToken('good')).toEqual({ user: { username: 'jane', uid: 'u1', groups: ['dev', 'system:authenticated'], extra: { k: ['v'] } } });
  const last = seen[seen.length - 1];
  expect(last.cn).toBe('system:node:n1');
  expect(last.body).toMatchObject({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'good' } });
});

test.each([
  ['an unauthenticated review without error is "not mine"', 'nope', null],
  ['an unauthenticated review with error is that error', 'err', 'token expired'],
  ['a non-2xx answer is an error', 'http-500', 'token review failed with status code 500'],
])('%s', async (_n, token, want) => {
  const a = webhookTokenAuthenticator({ url, ca: ca.cert, bearerToken: 'caller-token' });
  if (want === null) expect(await a.authenticateToken(token)).toBeNull();
  else await expect(a.authenticateToken(token)).rejects.toThrow(want);
  expect(seen[seen.length - 1].auth).toBe('Bearer caller-token');
});

test('an untrusted server certificate fails the review', async () => {
  const a = webhookTokenAuthenticator({ url });
  await expect(a.authenticateToken('good')).rejects.toThrow(/self.signed|unable to verify|certificate/i);
});
