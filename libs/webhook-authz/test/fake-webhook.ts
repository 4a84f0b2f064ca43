// A real HTTPS authorization webhook for the tests: its own CA, a serving certificate for 127.0.0.1, and a
// client certificate it requires. Records every request; each test sets how it answers.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCA, issueClientCert, issueServingCert, type PemPair } from '@cl/pki';
import { register } from 'prom-client';
import type { AuthorizationConfiguration } from '@cl/config';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  clientCN: string;
}

export type Responder = (req: RecordedRequest, res: ServerResponse) => void;

export interface FakeWebhook {
  port: number;
  url: string;
  dir: string;
  ca: PemPair;
  client: PemPair;
  requests: RecordedRequest[];
  /** Connections accepted (TLS handshakes that reached the server, including ones without requests). */
  connections: number;
  respond: Responder;
  /** Writes a kubeconfig for this webhook; `extra` overrides cluster/user fields. */
  kubeconfig(opts?: { server?: string; user?: Record<string, string>; cluster?: Record<string, string>; name?: string }): string;
  close(): Promise<void>;
}

export const review = (status: Record<string, unknown>, apiVersion = 'authorization.k8s.io/v1') =>
  JSON.stringify({ apiVersion, kind: 'SubjectAccessReview', status });

export const answer = (status: Record<string, unknown>): Responder => (_req, res) => {
  res.setHeader('Content-Type', 'application/json');
  res.end(review(status));
};

export async function startFakeWebhook(): Promise<FakeWebhook> {
  const dir = mkdtempSync(join(tmpdir(), 'fake-authz-'));
  const ca = await createCA('fake-authz-ca');
  const serving = await issueServingCert(ca, { hosts: ['127.0.0.1', 'localhost'] });
  const client = await issueClientCert(ca, { cn: 'cl-apiserver' });
  writeFileSync(join(dir, 'ca.pem'), ca.certPem);
  writeFileSync(join(dir, 'client.pem'), client.certPem);
  writeFileSync(join(dir, 'client-key.pem'), client.keyPem);
  const sockets = new Set<Socket>();
  const fake: FakeWebhook = {
    port: 0,
    url: '',
    dir,
    ca,
    client,
    requests: [],
    connections: 0,
    respond: answer({ allowed: true }),
    kubeconfig(opts = {}) {
      const file = join(dir, `${opts.name ?? 'kubeconfig'}.yaml`);
      const cluster = { server: opts.server ?? `${fake.url}/authorize`, 'certificate-authority': 'ca.pem', ...opts.cluster };
      const user = opts.user ?? { 'client-certificate': 'client.pem', 'client-key': 'client-key.pem' };
      const lines = (o: Record<string, string>) => Object.entries(o).map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`);
      writeFileSync(
        file,
        ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: authz', '  cluster:', ...lines(cluster), 'users:', '- name: apiserver', '  user:', ...(Object.keys(user).length ? lines(user) : ['    {}']), 'contexts:', '- name: webhook', '  context: {cluster: authz, user: apiserver}', 'current-context: webhook', ''].join('\n'),
      );
      return file;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const server: Server = createServer(
    { cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
        const rec: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, clientCN: String(peer?.subject?.CN ?? '') };
        fake.requests.push(rec);
        fake.respond(rec, res);
      });
    },
  );
  server.on('secureConnection', (s) => {
    fake.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  fake.port = (server.address() as AddressInfo).port;
  fake.url = `https://127.0.0.1:${fake.port}`;
  return fake;
}

/** The current value of a counter/gauge sample (0 when absent). */
export async function metricValue(name: string, labels: Record<string, string>): Promise<number> {
  const m = register.getSingleMetric(name);
  if (!m) return 0;
  const data = await m.get();
  const hit = data.values.find(
    (v) => !('metricName' in v && v.metricName !== name) && Object.entries(labels).every(([k, val]) => v.labels[k] === val),
  );
  return hit ? hit.value : 0;
}

/** An AuthorizationConfiguration with one v1 Webhook authorizer (1 ms cache TTLs, NoOpinion on failure) at `fake`. */
export function oneWebhookConfig(fake: FakeWebhook, name: string): AuthorizationConfiguration {
  return {
    authorizers: [
      {
        type: 'Webhook',
        name,
        webhook: {
          authorizedTTL: 1,
          unauthorizedTTL: 1,
          timeout: 5_000,
          subjectAccessReviewVersion: 'v1',
          failurePolicy: 'NoOpinion',
          connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: fake.kubeconfig() },
        },
      },
    ],
  };
}
