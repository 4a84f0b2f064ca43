// A client whose certificate rotates (the node agent's --rotate-certificates): against a real TLS server that
// wants client certificates, requests after a rotation present the new certificate, and a watch opened with the
// old one is ended so that it starts again with the new one.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
// eslint-disable-next-line @nx/enforce-module-boundaries -- test certificates only
import { createCA, issueClientCert, issueServingCert } from '../../pki/src';
import { KubeClient, RotatingCertificate } from '../src';

let server: Server;
let base: string;
let ca: Buffer;
const pairs: Record<string, { cert: Buffer; key: Buffer }> = {};

beforeAll(async () => {
  const authority = await createCA('rotation-test-ca');
  const serving = await issueServingCert(authority, { hosts: ['127.0.0.1'] });
  for (const cn of ['system:node:one-old', 'system:node:one-new']) {
    const p = await issueClientCert(authority, { cn, groups: ['system:nodes'] });
    pairs[cn] = { cert: Buffer.from(p.certPem), key: Buffer.from(p.keyPem) };
  }
  ca = Buffer.from(authority.certPem);
  server = createServer({ cert: serving.certPem, key: serving.keyPem, ca: authority.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const cn = (req.socket as TLSSocket).getPeerCertificate().subject?.CN;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    if (req.url?.includes('watch=true')) {
      // A watch: one event naming the caller, then the stream stays open.
      res.write(JSON.stringify({ type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: cn, resourceVersion: '1' } } }) + '\n');
      return;
    }
    res.end(JSON.stringify({ kind: 'ConfigMap', metadata: { name: cn } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

test('requests after a rotation present the new certificate; a watch made with the old one ends', async () => {
  const rotating = new RotatingCertificate(pairs['system:node:one-old']);
  const client = new KubeClient({ server: base, ca, rotatingCertificate: rotating, qps: -1 });
  try {
    const before = await client.get<{ metadata: { name: string } }>('/api/v1/namespaces/default/configmaps/x');
    expect(before.metadata.name).toBe('system:node:one-old');

    const seen: string[] = [];
    const watch = client.watch('/api/v1/namespaces/default/configmaps', {}, (_type, object: { metadata: { name: string } }) => {
      seen.push(object.metadata.name);
    });
    for (let i = 0; i < 200 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual(['system:node:one-old']);

    rotating.rotate(pairs['system:node:one-new']);
    // The old pool's connections are closed: the watch ends (its owner, an informer, would start a new one).
    await watch.done;
    const after = await client.get<{ metadata: { name: string } }>('/api/v1/namespaces/default/configmaps/x');
    expect(after.metadata.name).toBe('system:node:one-new');
  } finally {
    client.close();
  }
});

test('a client closed before a rotation is no longer told of it', async () => {
  const rotating = new RotatingCertificate(pairs['system:node:one-old']);
  const client = new KubeClient({ server: base, ca, rotatingCertificate: rotating, qps: -1 });
  await client.get('/api/v1/namespaces/default/configmaps/x');
  client.close();
  expect(() => rotating.rotate(pairs['system:node:one-new'])).not.toThrow();
  expect((rotating as unknown as { listeners: Set<unknown> }).listeners.size).toBe(0);
});
