import type { EgressSelectorConfiguration } from '@cl/config';
import * as path from 'node:path';
import { Registry } from 'prom-client';
import { createEgressSelector, EgressDialError } from '../src';
import { startConnectProxy, type ConnectProxy } from './support/connect-proxy';
import { callWebhook, startWebhook, tempDir, type Webhook } from './support/servers';
import { asFailure, metricValue, noStream, readBytes } from './support/streams';

jest.setTimeout(60_000);

let proxy: ConnectProxy;
let webhook: Webhook;
let sock: string;

const config = (udsName: string, name = 'cluster'): EgressSelectorConfiguration => ({
  apiVersion: 'apiserver.k8s.io/v1beta1',
  kind: 'EgressSelectorConfiguration',
  egressSelections: [{ name, connection: { proxyProtocol: 'HTTPConnect', transport: { uds: { udsName } } } }],
});

beforeAll(async () => {
  sock = path.join(tempDir('egress-uds-'), 'proxy.sock');
  proxy = await startConnectProxy({ path: sock });
  webhook = await startWebhook();
});

afterAll(async () => {
  await proxy.close();
  await webhook.close();
});

beforeEach(() => {
  proxy.connections.length = 0;
});

test('sends the exact CONNECT request, then the tunnel carries bytes both ways (EG-04)', async () => {
  proxy.mode = { kind: 'echo' };
  const registry = new Registry();
  const selector = createEgressSelector(config(sock), { registry });
  const stream = await selector.dialerFor('cluster').dial('10.0.0.5', 10250);
  stream.write('ping');
  expect((await readBytes(stream, 4)).toString()).toBe('ping');
  stream.destroy();
  expect(proxy.connections[0].toString()).toBe('CONNECT 10.0.0.5:10250 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nping');
  expect(await metricValue(registry, 'apiserver_egress_dialer_dial_start_total', { protocol: 'http_connect', transport: 'uds' })).toBe(1);
  expect(await metricValue(registry, 'apiserver_egress_dialer_dial_duration_seconds_count', { protocol: 'http_connect', transport: 'uds' })).toBe(1);
});

test.each([
  ['a refusal (EG-05)', { kind: 'respond', bytes: 'HTTP/1.1 503 Service Unavailable\r\n\r\n' }, `proxy error from SOCK while dialing 10.0.0.5:10250, code 503: 503 Service Unavailable`],
  ['a 2xx other than 200', { kind: 'respond', bytes: 'HTTP/1.1 204 No Content\r\n\r\n' }, `proxy error from SOCK while dialing 10.0.0.5:10250, code 204: 204 No Content`],
  ['a close without an answer (EG-07)', { kind: 'close' }, 'reading HTTP response from CONNECT to 10.0.0.5:10250 via proxy SOCK failed: EOF'],
  ['garbage (EG-07)', { kind: 'respond', bytes: 'garbage\r\n\r\n' }, 'reading HTTP response from CONNECT to 10.0.0.5:10250 via proxy SOCK failed: malformed HTTP response "garbage"'],
] as const)('the proxy answering with %s fails the dial at stage proxy', async (_name, mode, message) => {
  proxy.mode = mode;
  const registry = new Registry();
  const dial = createEgressSelector(config(sock), { registry }).dialerFor('cluster').dial('10.0.0.5', 10250);
  const err = await dial.then(noStream, asFailure);
  expect(err).toBeInstanceOf(EgressDialError);
  expect((err as Error).message).toBe(message.replace('SOCK', sock));
  expect(await metricValue(registry, 'apiserver_egress_dialer_dial_failure_count', { protocol: 'http_connect', transport: 'uds', stage: 'proxy' })).toBe(1);
});

test('bytes that arrive with the response head are the first bytes of the tunnel (EG-06, relaxed)', async () => {
  proxy.mode = { kind: 'respondAndEcho', bytes: 'HTTP/1.1 200 Connection Established\r\n\r\nEXTRA' };
  const stream = await createEgressSelector(config(sock)).dialerFor('cluster').dial('10.0.0.5', 10250);
  stream.write('ping');
  expect((await readBytes(stream, 9)).toString()).toBe('EXTRAping');
  stream.destroy();
});

test('a missing socket fails at stage connect with the socket error (EG-08)', async () => {
  const registry = new Registry();
  const missing = path.join(path.dirname(sock), 'nope.sock');
  const err = await createEgressSelector(config(missing), { registry })
    .dialerFor('cluster')
    .dial('10.0.0.5', 10250)
    .then(noStream, asFailure);
  expect(err.message).toBe(`dial unix ${missing}: connect: no such file or directory`);
  expect(await metricValue(registry, 'apiserver_egress_dialer_dial_failure_count', { protocol: 'http_connect', transport: 'uds', stage: 'connect' })).toBe(1);
});

test('an aborted signal ends a dial the proxy never answers, and closes the tunnel connection', async () => {
  proxy.mode = { kind: 'silent' };
  const err = await createEgressSelector(config(sock))
    .dialerFor('cluster')
    .dial('10.0.0.5', 10250, AbortSignal.timeout(200))
    .then(noStream, asFailure);
  expect(err.message).toBe(`reading HTTP response from CONNECT to 10.0.0.5:10250 via proxy ${sock} failed: context deadline exceeded`);
});

test('an HTTPS webhook call through controlplane runs its TLS inside the tunnel (EG-14)', async () => {
  proxy.mode = { kind: 'forward' };
  const selector = createEgressSelector(config(sock, 'controlplane'));
  const reason = await callWebhook(selector.agentFor('controlplane', {}), webhook.port, webhook.ca, 'jane');
  expect(reason).toBe('hello jane');
  const head = proxy.connections[0].toString('latin1');
  expect(head.startsWith(`CONNECT 127.0.0.1:${webhook.port} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)).toBe(true);
  // The proxy saw a TLS record (0x16 handshake) after the CONNECT, never the plaintext review.
  expect(proxy.connections[0][head.indexOf('\r\n\r\n') + 4]).toBe(0x16);
  expect(head).not.toContain('SubjectAccessReview');
});

test('selections without configuration dial directly (EG-14)', async () => {
  proxy.mode = { kind: 'forward' };
  const selector = createEgressSelector(config(sock, 'cluster'));
  expect(selector.isDirect('controlplane')).toBe(true);
  expect(await callWebhook(selector.agentFor('master', {}), webhook.port, webhook.ca, 'bob')).toBe('hello bob');
  expect(proxy.connections).toHaveLength(0);
});
