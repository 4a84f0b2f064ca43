import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCA, issueClientCert, issueServingCert, generateSelfSignedServing, certificateSubject } from './index';

describe('pki over real TLS', () => {
  let server: Server;
  let port: number;
  let ca: Awaited<ReturnType<typeof createCA>>;

  beforeAll(async () => {
    ca = await createCA('test-ca');
    const serving = await issueServingCert(ca, { hosts: ['localhost', '127.0.0.1', '::1'] });
    server = createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
      res.end(JSON.stringify({ cn: peer.subject?.CN ?? null, o: peer.subject?.O ?? null, authorized: (req.socket as import('node:tls').TLSSocket).authorized }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  function get(opts: { cert?: string; key?: string }): Promise<{ cn: string | null; o: string[] | string | null; authorized: boolean }> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/', ca: ca.certPem, ...opts }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(JSON.parse(body)));
      });
      req.on('error', reject);
      req.end();
    });
  }

  test('a client certificate carries the user as CN and the groups as O', async () => {
    const alice = await issueClientCert(ca, { cn: 'alice', groups: ['dev', 'ops'] });
    const seen = await get({ cert: alice.certPem, key: alice.keyPem });
    expect(seen).toEqual({ cn: 'alice', o: ['dev', 'ops'], authorized: true });
    expect(certificateSubject(alice.certPem)).toEqual({ commonName: 'alice', organizations: ['dev', 'ops'] });
  });

  test('a certificate from another CA is not authorized', async () => {
    const other = await createCA('other');
    const mallory = await issueClientCert(other, { cn: 'mallory' });
    expect((await get({ cert: mallory.certPem, key: mallory.keyPem })).authorized).toBe(false);
  });
});

describe('generateSelfSignedServing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pki-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('creates the pair once and reuses it', async () => {
    const first = await generateSelfSignedServing({ hosts: ['localhost', '127.0.0.1'], dir, name: 'apiserver' });
    expect(first.created).toBe(true);
    const pem = readFileSync(first.certFile, 'utf8');
    const again = await generateSelfSignedServing({ hosts: ['localhost', '127.0.0.1'], dir, name: 'apiserver' });
    expect(again.created).toBe(false);
    expect(readFileSync(again.certFile, 'utf8')).toBe(pem);
    expect(pem.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
  });
});
