// An HTTPS "webhook" with its own CA, TLS material on disk for the egress TLS config, and a real tinyproxy.
import { createCA, issueClientCert, issueServingCert, type PemPair } from '@cl/pki';
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import type * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';


export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

export interface Webhook {
  port: number;
  ca: string;
  /** Request lines seen (`POST /authorize`). */
  requests: string[];
  close(): Promise<void>;
}

/** Answers every POST with an allowed SubjectAccessReview echoing the request body's user. */
export async function startWebhook(): Promise<Webhook> {
  const ca = await createCA('webhook-ca');
  const serving = await issueServingCert(ca, { hosts: ['127.0.0.1', 'localhost'] });
  const requests: string[] = [];
  const server = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    requests.push(`${req.method} ${req.url}`);
    let body = '';
    req.on('data', (b: Buffer) => (body += b.toString()));
    req.on('end', () => {
      const review = JSON.parse(body || '{}') as { spec?: { user?: string } };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', status: { allowed: true, reason: `hello ${review.spec?.user ?? ''}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    ca: ca.certPem,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** POSTs a SubjectAccessReview through `agent` and returns the status reason. */
export function callWebhook(agent: https.Agent, port: number, ca: string, user: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/authorize?timeout=5s', agent, ca, headers: { 'content-type': 'application/json' } },
      (res) => {
        let body = '';
        res.on('data', (b: Buffer) => (body += b.toString()));
        res.on('end', () => resolve((JSON.parse(body) as { status: { reason: string } }).status.reason));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user } }));
  });
}

export interface TlsFiles {
  dir: string;
  ca: PemPair;
  caFile: string;
  serving: PemPair;
  clientCertFile: string;
  clientKeyFile: string;
  otherCaFile: string;
}

/** A CA, a serving pair for 127.0.0.1, a client pair, and an unrelated CA, written to files. */
export async function makeTlsFiles(): Promise<TlsFiles> {
  const dir = tempDir('egress-tls-');
  const ca = await createCA('proxy-ca');
  const other = await createCA('other-ca');
  const serving = await issueServingCert(ca, { hosts: ['127.0.0.1'] });
  const client = await issueClientCert(ca, { cn: 'apiserver-egress' });
  const file = (name: string, text: string) => {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  return {
    dir,
    ca,
    caFile: file('ca.crt', ca.certPem),
    serving,
    clientCertFile: file('client.crt', client.certPem),
    clientKeyFile: file('client.key', client.keyPem),
    otherCaFile: file('other-ca.crt', other.certPem),
  };
}
