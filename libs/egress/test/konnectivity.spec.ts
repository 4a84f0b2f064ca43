import type { EgressSelectorConfiguration } from '@cl/config';
import * as path from 'node:path';
import { Registry } from 'prom-client';
import { createEgressSelector, EgressDialError } from '../src';
import { startKonnectivityServer, type KonnectivityServer } from './support/konnectivity-server';
import { callWebhook, startWebhook, tempDir, type Webhook } from './support/servers';
import { asFailure, metricValue, noStream, readBytes } from './support/streams';

jest.setTimeout(60_000);

let tunnel: KonnectivityServer;
let webhook: Webhook;
let sock: string;

const config = (udsName: string, name = 'cluster'): EgressSelectorConfiguration => ({
  apiVersion: 'apiserver.k8s.io/v1beta1',
  kind: 'EgressSelectorConfiguration',
  egressSelections: [{ name, connection: { proxyProtocol: 'GRPC', transport: { uds: { udsName } } } }],
});

beforeAll(async () => {
  sock = path.join(tempDir('egress-grpc-'), 'konnectivity.sock');
  tunnel = await startKonnectivityServer(sock);
  webhook = await startWebhook();
});

afterAll(async () => {
  await tunnel.close();
  await webhook.close();
});

test('DIAL_REQ, DATA and CLOSE_REQ on /ProxyService/Proxy; CLOSE_RSP ends the stream cleanly (EG-10)', async () => {
  tunnel.mode = { kind: 'echo', connectID: 7 };
  const registry = new Registry();
  const stream = await createEgressSelector(config(sock), { registry }).dialerFor('cluster').dial('10.0.0.5', 10250);
  const n = tunnel.streams.length - 1;
  stream.write('hello');
  expect((await readBytes(stream, 5)).toString()).toBe('hello');
  const finished = new Promise<void>((resolve, reject) => {
    stream.once('finish', resolve);
    stream.once('error', reject);
  });
  stream.resume();
  stream.end();
  await finished;
  await tunnel.streamEnded(n);
  const packets = tunnel.streams[n];
  expect(packets.map((p) => p.type)).toEqual(['DIAL_REQ', 'DATA', 'CLOSE_REQ']);
  expect(packets[0].dialRequest).toMatchObject({ protocol: 'tcp', address: '10.0.0.5:10250' });
  expect(BigInt(packets[0].dialRequest!.random)).toBeGreaterThanOrEqual(0n);
  expect(packets[1].data).toMatchObject({ connectID: '7', data: Buffer.from('hello') });
  expect(packets[2].closeRequest).toEqual({ connectID: '7' });
  expect(await metricValue(registry, 'apiserver_egress_dialer_dial_start_total', { protocol: 'grpc', transport: 'uds' })).toBe(1);
  expect(await metricValue(registry, 'apiserver_egress_dialer_dial_duration_seconds_count', { protocol: 'grpc', transport: 'uds' })).toBe(1);
  expect(await metricValue(registry, 'konnectivity_network_proxy_client_stream_packets_total', { segment: 'from_client', packet_type: 'DIAL_REQ' })).toBe(1);
});

test('a large write is cut into 1 MiB DATA packets; small writes queued together share one packet', async () => {
  tunnel.mode = { kind: 'echo', connectID: 9 };
  const stream = await createEgressSelector(config(sock)).dialerFor('cluster').dial('10.0.0.5', 10250);
  const n = tunnel.streams.length - 1;
  const big = Buffer.alloc(2.5 * 1024 * 1024, 0x5a);
  stream.cork();
  for (const part of ['tls-', 'record-', 'parts']) stream.write(part);
  stream.uncork();
  stream.write(big);
  const echoed = await readBytes(stream, 16 + big.length);
  expect(echoed.subarray(0, 16).toString()).toBe('tls-record-parts');
  expect(echoed.subarray(16).equals(big)).toBe(true);
  stream.destroy();
  await tunnel.streamEnded(n);
  const sizes = tunnel.streams[n].filter((p) => p.type === 'DATA').map((p) => p.data!.data.length);
  expect(sizes).toEqual([16, 1024 * 1024, 1024 * 1024, 512 * 1024]);
});

test("the tunnel server's dial error is the dial error, word for word (EG-11)", async () => {
  tunnel.mode = { kind: 'dialError', error: 'dial tcp 10.0.0.5:10250: connect: connection refused' };
  const registry = new Registry();
  const err = await createEgressSelector(config(sock), { registry })
    .dialerFor('cluster')
    .dial('10.0.0.5', 10250)
    .then(noStream, asFailure);
  expect(err).toBeInstanceOf(EgressDialError);
  expect(err).toMatchObject({ message: 'dial tcp 10.0.0.5:10250: connect: connection refused', stage: 'proxy' });
  expect(await metricValue(registry, 'apiserver_egress_dialer_dial_failure_count', { protocol: 'grpc', transport: 'uds', stage: 'proxy' })).toBe(1);
  expect(await metricValue(registry, 'konnectivity_network_proxy_client_dial_failure_total', { reason: 'endpoint' })).toBe(1);
});

test('a dial the server never answers ends at the caller deadline with DIAL_CLS (EG-12)', async () => {
  tunnel.mode = { kind: 'silent' };
  const dial = createEgressSelector(config(sock)).dialerFor('cluster').dial('10.0.0.5', 10250, AbortSignal.timeout(200));
  const err = await dial.then(noStream, asFailure);
  expect(err.message).toBe('dial timeout, context');
  const n = tunnel.streams.length - 1;
  await tunnel.streamEnded(n);
  const packets = tunnel.streams[n];
  expect(packets.map((p) => p.type)).toEqual(['DIAL_REQ', 'DIAL_CLS']);
  expect(packets[1].closeDial!.random).toBe(packets[0].dialRequest!.random);
});

test('DIAL_CLS from the server fails the dial with "dial closed" (EG-13)', async () => {
  tunnel.mode = { kind: 'dialClose' };
  const err = await createEgressSelector(config(sock)).dialerFor('cluster').dial('10.0.0.5', 10250).then(noStream, asFailure);
  expect(err.message).toBe('dial closed');
});

test('a missing socket fails at stage connect', async () => {
  const missing = path.join(path.dirname(sock), 'absent.sock');
  const err = await createEgressSelector(config(missing)).dialerFor('cluster').dial('10.0.0.5', 10250).then(noStream, asFailure);
  expect(err).toMatchObject({ stage: 'connect', message: `dial unix ${missing}: connect: no such file or directory` });
});

test('an HTTPS webhook call through the gRPC tunnel', async () => {
  tunnel.mode = { kind: 'forward' };
  const selector = createEgressSelector(config(sock, 'controlplane'));
  const agent = selector.agentFor('controlplane', {});
  expect(await callWebhook(agent, webhook.port, webhook.ca, 'dave')).toBe('hello dave');
  const packets = tunnel.streams.at(-1)!;
  expect(packets[0].dialRequest!.address).toBe(`127.0.0.1:${webhook.port}`);
  // Only TLS records travelled as DATA: the first one is a handshake record.
  expect(packets[1].data!.data[0]).toBe(0x16);
  agent.destroy();
});
