import { createHash, X509Certificate } from 'node:crypto';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { x509Authenticator, type AuthResponse } from '../src';
import { TestPki, type KeyPair } from './pki';

// One real TLS server that accepts any client cert and reports what the authenticator said.
let pki: TestPki;
let ca: KeyPair;
let server: Server;
let port: number;
const certs: Record<string, KeyPair> = {};

beforeAll(async () => {
  pki = new TestPki();
  ca = pki.ca('ca');
  pki.ca('other-ca');
  const srv = pki.server('server', 'ca');
  certs.jane = pki.client('jane', 'ca', '/CN=jane/O=dev/O=ops');
  certs.uid = pki.client('uid', 'ca', '/CN=bob/UID=1234');
  certs.nocn = pki.client('nocn', 'ca', '/O=dev');
  certs.serverOnly = pki.leaf('serveronly', 'ca', '/CN=mallory', ['extendedKeyUsage=serverAuth']);
  certs.stranger = pki.client('stranger', 'other-ca', '/CN=eve');
  const authn = x509Authenticator({ clientCA: ca.cert });
  server = createServer({ ...srv, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    // A synchronous answer or throw takes the same path as an asynchronous one.
    new Promise<AuthResponse | null>((resolve) => resolve(authn.authenticate(req))).then(
      (r: AuthResponse | null) => res.end(JSON.stringify({ result: r })),
      (e: Error) => res.end(JSON.stringify({ error: e.message })),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  pki.cleanup();
});

function call(client?: KeyPair): Promise<{ result?: AuthResponse | null; error?: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', ca: ca.cert, ...(client ?? {}), agent: false }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve(JSON.parse(body)));
    });
    req.on('error', reject);
    req.end();
  });
}

test('CN is the user, every O a group, the cert hash the credential id', async () => {
  const got = await call(certs.jane);
  const hash = createHash('sha256').update(new X509Certificate(certs.jane.cert).raw).digest('hex');
  expect(got.result).toEqual({
    user: { username: 'jane', uid: '', groups: ['dev', 'ops'], extra: { 'authentication.kubernetes.io/credential-id': [`X509SHA256=${hash}`] } },
  });
});

test('the UID attribute becomes the uid', async () => {
  expect((await call(certs.uid)).result?.user).toMatchObject({ username: 'bob', uid: '1234', groups: [] });
});

test.each([
  ['no client certificate', undefined, { result: null }],
  ['a certificate without CN', 'nocn', { result: null }],
])('%s is not mine', async (_name, which, want) => {
  expect(await call(which ? certs[which] : undefined)).toEqual(want);
});

test.each([
  ['signed by another CA', 'stranger', /^verifying certificate SN=\d+, SKID=[0-9A-F:]+, AKID=[0-9A-F:]+ failed: x509: certificate signed by unknown authority$/],
  ['not for client auth', 'serverOnly', /failed: x509: certificate specifies an incompatible key usage$/],
])('a certificate %s is an error', async (_name, which, want) => {
  const got = await call(certs[which]);
  expect(got.error).toMatch(want);
});

test('a bundle without certificates is refused at construction', () => {
  expect(() => x509Authenticator({ clientCA: 'nothing here' })).toThrow('data does not contain any valid RSA or ECDSA certificates');
});
