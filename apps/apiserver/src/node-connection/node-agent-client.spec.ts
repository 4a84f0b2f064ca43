// The client against a real HTTPS server on 127.0.0.1: which identity it presents and when it verifies the agent.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { directDialer } from '@cl/egress';
import { createCA, issueClientCert, issueServingCert } from '@cl/pki';
import { NodeAgentClient, type NodeAgentClientOptions } from './node-agent-client';

let dir: string;
let server: Server;
let port: number;
const files: Record<string, string> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cl-agent-client-'));
  const agentCA = await createCA('agent-ca');
  const otherCA = await createCA('other-ca');
  const clientCA = await createCA('client-ca');
  const serving = await issueServingCert(agentCA, { hosts: ['127.0.0.1'] });
  const client = await issueClientCert(clientCA, { cn: 'kube-apiserver-kubelet-client' });
  for (const [name, text] of Object.entries({ 'agent-ca.crt': agentCA.certPem, 'other-ca.crt': otherCA.certPem, 'client.crt': client.certPem, 'client.key': client.keyPem })) {
    files[name] = join(dir, name);
    writeFileSync(files[name], text);
  }
  // The agent asks for a client certificate but lets the request in without one (anonymous), and says whom it saw.
  server = createServer({ cert: serving.certPem, key: serving.keyPem, ca: clientCA.certPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const socket = req.socket as TLSSocket;
    const peer = socket.authorized ? socket.getPeerCertificate().subject.CN : 'anonymous';
    res.end(`${req.method} ${req.url} as ${peer}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const body = (res: NodeJS.ReadableStream) =>
  new Promise<string>((resolve) => {
    let s = '';
    res.on('data', (d: Buffer) => (s += d.toString()));
    res.on('end', () => resolve(s));
  });

describe('NodeAgentClient', () => {
  test.each<[string, Partial<NodeAgentClientOptions>, boolean, string | RegExp]>([
    ['no CA: the agent is not verified, no identity', {}, false, 'GET /healthz as anonymous'],
    ['the agent\'s CA and a client pair', { caFile: 'agent-ca.crt', clientCertFile: 'client.crt', clientKeyFile: 'client.key' }, false, 'GET /healthz as kube-apiserver-kubelet-client'],
    ['another CA refuses the agent', { caFile: 'other-ca.crt' }, false, /certificate/],
    ['another CA, but insecureSkipTLSVerifyBackend', { caFile: 'other-ca.crt', clientCertFile: 'client.crt', clientKeyFile: 'client.key' }, true, 'GET /healthz as kube-apiserver-kubelet-client'],
  ])('%s', async (_name, o, insecure, want) => {
    const opts = Object.fromEntries(Object.entries(o).map(([k, v]) => [k, files[v as string]]));
    const client = new NodeAgentClient({ dialer: directDialer, timeoutMs: 5000, ...opts });
    try {
      const answer = client.request({ host: '127.0.0.1', port }, { method: 'GET', path: '/healthz', insecure }).then(body);
      if (typeof want === 'string') await expect(answer).resolves.toBe(want);
      else await expect(answer).rejects.toThrow(want);
      // An upgraded stream's connection is verified the same way (insecure applies to logs only).
      const connected = client.connect({ host: '127.0.0.1', port });
      if (typeof want === 'string' && !insecure) {
        const socket = await connected;
        socket.destroy();
      } else if (!insecure) await expect(connected).rejects.toThrow(want);
      else await connected.then((s) => s.destroy(), () => undefined);
    } finally {
      client.close();
    }
  });
});
