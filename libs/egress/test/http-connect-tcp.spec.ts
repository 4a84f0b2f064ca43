import type { EgressSelectorConfiguration, TLSConfig } from '@cl/config';
import { createEgressSelector } from '../src';
import { startConnectProxy, type ConnectProxy } from './support/connect-proxy';
import { startSquid, startTinyproxy, type Squid, type Tinyproxy } from '@cl/testing';
import { callWebhook, makeTlsFiles, startWebhook, type TlsFiles, type Webhook } from './support/servers';
import { asFailure, noStream, readBytes } from './support/streams';

jest.setTimeout(60_000);

let tlsFiles: TlsFiles;
let mtlsProxy: ConnectProxy;
let tinyproxy: Tinyproxy;
let squid: Squid;
let webhook: Webhook;

const config = (url: string, tlsConfig?: TLSConfig): EgressSelectorConfiguration => ({
  apiVersion: 'apiserver.k8s.io/v1alpha1',
  kind: 'EgressSelectorConfiguration',
  egressSelections: [{ name: 'controlplane', connection: { proxyProtocol: 'HTTPConnect', transport: { tcp: { url, tlsConfig } } } }],
});

beforeAll(async () => {
  tlsFiles = await makeTlsFiles();
  webhook = await startWebhook();
  mtlsProxy = await startConnectProxy({
    tls: { cert: tlsFiles.serving.certPem, key: tlsFiles.serving.keyPem, ca: tlsFiles.ca.certPem, requestCert: true, rejectUnauthorized: true },
  });
  // Both proxies allow CONNECT only to the webhook's port, so any other port is refused by the proxy itself.
  [tinyproxy, squid] = await Promise.all([startTinyproxy([webhook.port]), startSquid([webhook.port])]);
});

afterAll(async () => {
  await mtlsProxy.close();
  await tinyproxy.stop();
  await squid.stop();
  await webhook.close();
});

describe('HTTPConnect over TLS with a client certificate (EG-09)', () => {
  const mtlsUrl = () => {
    const a = mtlsProxy.address as { host: string; port: number };
    return `https://${a.host}:${a.port}`;
  };

  test('presents the client certificate, verifies the proxy by IP SAN, then tunnels', async () => {
    mtlsProxy.mode = { kind: 'echo' };
    mtlsProxy.connections.length = 0;
    const selector = createEgressSelector(
      config(mtlsUrl(), { caBundle: tlsFiles.caFile, clientCert: tlsFiles.clientCertFile, clientKey: tlsFiles.clientKeyFile }),
    );
    const stream = await selector.dialerFor('controlplane').dial('10.0.0.5', 10250);
    stream.write('ping');
    expect((await readBytes(stream, 4)).toString()).toBe('ping');
    stream.destroy();
    expect(mtlsProxy.clientCNs.at(-1)).toBe('apiserver-egress');
    expect(mtlsProxy.connections[0].toString()).toBe('CONNECT 10.0.0.5:10250 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nping');
  });

  test('a webhook call runs its own TLS inside the mTLS tunnel', async () => {
    mtlsProxy.mode = { kind: 'forward' };
    const selector = createEgressSelector(
      config(mtlsUrl(), { caBundle: tlsFiles.caFile, clientCert: tlsFiles.clientCertFile, clientKey: tlsFiles.clientKeyFile }),
    );
    expect(await callWebhook(selector.agentFor('controlplane', {}), webhook.port, webhook.ca, 'alice')).toBe('hello alice');
  });

  test('a proxy certificate from another CA fails the dial at stage connect', async () => {
    const selector = createEgressSelector(
      config(mtlsUrl(), { caBundle: tlsFiles.otherCaFile, clientCert: tlsFiles.clientCertFile, clientKey: tlsFiles.clientKeyFile }),
    );
    const err = await selector
      .dialerFor('controlplane')
      .dial('10.0.0.5', 10250)
      .then(noStream, asFailure);
    expect(err).toMatchObject({ stage: 'connect' });
    expect(err.message).toMatch(new RegExp(`^dial tcp ${mtlsUrl().slice(8)}: .*certificate`));
  });
});

// Two independent real proxies (Debian's tinyproxy and squid) speak CONNECT to the same dialer.
describe.each([
  ['tinyproxy', () => tinyproxy.port],
  ['squid', () => squid.port],
])('HTTPConnect over plain TCP through a real %s', (_name, proxyPort) => {
  test('a webhook call goes through the proxy', async () => {
    const selector = createEgressSelector(config(`http://127.0.0.1:${proxyPort()}`));
    const before = webhook.requests.length;
    expect(await callWebhook(selector.agentFor('controlplane', {}), webhook.port, webhook.ca, 'carol')).toBe('hello carol');
    expect(webhook.requests.slice(before)).toEqual(['POST /authorize?timeout=5s']);
  });

  test("the proxy's refusal surfaces as the upstream proxy error", async () => {
    const selector = createEgressSelector(config(`http://127.0.0.1:${proxyPort()}`));
    const err = await selector
      .dialerFor('controlplane')
      .dial('127.0.0.1', 1)
      .then(noStream, asFailure);
    expect(err.message).toMatch(new RegExp(`^proxy error from 127\\.0\\.0\\.1:${proxyPort()} while dialing 127\\.0\\.0\\.1:1, code 403: 403 `));
  });
});
