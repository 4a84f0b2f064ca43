// A real HTTPS authorization webhook for the API server tests: own CA, serving cert for 127.0.0.1, a client
// certificate it requires from the API server, a kubeconfig pointing at it, and a policy function per test.
import { createServer, type Server } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCA, issueClientCert, issueServingCert } from '@cl/pki';
import { KUBECTL } from '@cl/testing';

export interface ReviewSpec {
  resourceAttributes?: Record<string, string>;
  nonResourceAttributes?: { path?: string; verb?: string };
  user?: string;
  groups?: string[];
}

export interface AuthzWebhook {
  url: string;
  kubeconfig: string;
  reviews: ReviewSpec[];
  policy: (spec: ReviewSpec, res: ServerResponse) => void;
  close(): Promise<void>;
}

export const reply = (res: ServerResponse, status: Record<string, unknown>) => {
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', status }));
};

export async function startAuthzWebhook(dir: string): Promise<AuthzWebhook> {
  const ca = await createCA('authz-webhook-ca');
  const serving = await issueServingCert(ca, { hosts: ['127.0.0.1'] });
  const client = await issueClientCert(ca, { cn: 'cl-apiserver' });
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  file('authz-ca.pem', ca.certPem);
  file('authz-client.pem', client.certPem);
  file('authz-client-key.pem', client.keyPem);
  const sockets = new Set<Socket>();
  const hook: AuthzWebhook = {
    url: '',
    kubeconfig: '',
    reviews: [],
    policy: (_spec, res) => reply(res, { allowed: false }),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const spec = (JSON.parse(body) as { spec: ReviewSpec }).spec;
      hook.reviews.push(spec);
      hook.policy(spec, res);
    });
  });
  server.on('secureConnection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  hook.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`;
  hook.kubeconfig = file(
    'authz-kubeconfig.yaml',
    ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: authz', '  cluster:', `    server: ${hook.url}`, '    certificate-authority: authz-ca.pem', 'users:', '- name: apiserver', '  user:', '    client-certificate: authz-client.pem', '    client-key: authz-client-key.pem', 'contexts:', '- name: webhook', '  context: {cluster: authz, user: apiserver}', 'current-context: webhook', ''].join('\n'),
  );
  return hook;
}

/**
 * kubectl without blocking this process: the webhook runs in the test process, so the harness's spawnSync
 * would leave every webhook call of the API server unanswered.
 */
export function kubectlAsync(kubeconfig: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { env: { ...process.env, HOME: tmpdir() }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
