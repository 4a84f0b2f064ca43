// An HTTPS "webhook" with its own CA, TLS material on disk for the egress TLS config, and a real tinyproxy.
import { createCA, issueClientCert, issueServingCert, type PemPair } from '@cl/pki';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import type * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freePort } from './etcd';

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

export interface Tinyproxy {
  port: number;
  stop(): Promise<void>;
}

/** A real tinyproxy on a free loopback port; CONNECT is allowed only to `allowedConnectPorts` when given. */
export async function startTinyproxy(allowedConnectPorts: number[] = []): Promise<Tinyproxy> {
  const dir = tempDir('egress-tinyproxy-');
  const port = await freePort();
  const conf = path.join(dir, 'tinyproxy.conf');
  writeFileSync(
    conf,
    [
      'User nobody',
      'Group nogroup',
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 60',
      'MaxClients 50',
      'LogLevel Warning',
      'Allow 127.0.0.1',
      ...allowedConnectPorts.map((p) => `ConnectPort ${p}`),
      '',
    ].join('\n'),
  );
  const child = spawn('tinyproxy', ['-d', '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (b: Buffer) => (log += b.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const { connect } = await import('node:net');
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`tinyproxy exited: ${log}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = connect({ host: '127.0.0.1', port }, () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) throw new Error(`tinyproxy did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
