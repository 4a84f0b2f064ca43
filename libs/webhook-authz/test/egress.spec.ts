// Webhook calls follow the egress selector: with `controlplane` configured as HTTPConnect, the webhook's TLS
// handshake runs inside a CONNECT tunnel (authz-egress EG-14); without it they dial directly.
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { userInfo, type Attributes } from '@cl/auth';
import { createEgressSelector } from '@cl/egress';
import { AuthorizerChain, nonResourceAttributes, type AgentFactory } from '../src';
import { answer, oneWebhookConfig, startFakeWebhook, type FakeWebhook } from './fake-webhook';

jest.setTimeout(60_000);

let fake: FakeWebhook;
let proxy: net.Server;
let proxyPort = 0;
const connects: string[] = [];
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  fake = await startFakeWebhook();
  fake.respond = answer({ allowed: true });
  // A plain HTTP CONNECT proxy: records the request line, then splices the two connections.
  proxy = net.createServer((client) => {
    sockets.add(client);
    client.once('data', (head) => {
      const line = head.toString('latin1').split('\r\n')[0];
      connects.push(line);
      const [host, port] = line.split(' ')[1].split(':');
      const upstream = net.connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        client.pipe(upstream).pipe(client);
      });
      sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  proxyPort = (proxy.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => proxy.close(() => r()));
  await fake.close();
});

const attrs: Attributes = nonResourceAttributes(userInfo({ username: 'alice' }), 'get', '/x');

function chainWith(agentFactory: AgentFactory) {
  return AuthorizerChain.fromConfig(
    oneWebhookConfig(fake, 'egress'),
    { agentFactory, log: () => undefined },
  );
}

const factoryOf = (selector: ReturnType<typeof createEgressSelector>): AgentFactory => (_url, tls) =>
  tls ? selector.agentFor('controlplane', tls) : selector.agentFor('controlplane');

test('controlplane over HTTPConnect: the webhook is reached through the tunnel, client certificate inside it', async () => {
  const selector = createEgressSelector({
    egressSelections: [{ name: 'controlplane', connection: { proxyProtocol: 'HTTPConnect', transport: { tcp: { url: `http://127.0.0.1:${proxyPort}` } } } }],
  });
  const chain = chainWith(factoryOf(selector));
  try {
    fake.requests = [];
    expect((await chain.authorize(attrs)).decision).toBe('Allow');
    expect(connects).toEqual([`CONNECT 127.0.0.1:${fake.port} HTTP/1.1`]);
    expect(fake.requests[0].clientCN).toBe('cl-apiserver');
  } finally {
    chain.close();
  }
});

test('only `cluster` configured: webhook calls dial directly', async () => {
  connects.length = 0;
  const selector = createEgressSelector({
    egressSelections: [{ name: 'cluster', connection: { proxyProtocol: 'HTTPConnect', transport: { tcp: { url: `http://127.0.0.1:${proxyPort}` } } } }],
  });
  const chain = chainWith(factoryOf(selector));
  try {
    expect((await chain.authorize(attrs)).decision).toBe('Allow');
    expect(connects).toEqual([]);
  } finally {
    chain.close();
  }
});
