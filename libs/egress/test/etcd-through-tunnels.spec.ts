// A real etcd reached by a grpc-js client through each kind of tunnel, via listenForwarder.
import type { Connection, EgressSelectorConfiguration } from '@cl/config';
import * as path from 'node:path';
import { createEgressSelector, listenForwarder } from '../src';
import { startConnectProxy, type ConnectProxy } from './support/connect-proxy';
import { startKonnectivityServer, type KonnectivityServer } from './support/konnectivity-server';
import { EtcdStore } from '@cl/store';
import { startEtcd, startTinyproxy, type EtcdServer, type Tinyproxy } from '@cl/testing';
import { makeTlsFiles, tempDir, type TlsFiles } from './support/servers';

jest.setTimeout(120_000);

let etcd: EtcdServer;
let tinyproxy: Tinyproxy;
let udsProxy: ConnectProxy;
let mtlsProxy: ConnectProxy;
let tunnel: KonnectivityServer;
let tlsFiles: TlsFiles;
let dir: string;

beforeAll(async () => {
  dir = tempDir('egress-etcd-tunnels-');
  tlsFiles = await makeTlsFiles();
  [etcd, tinyproxy, udsProxy, mtlsProxy, tunnel] = await Promise.all([
    startEtcd(),
    startTinyproxy(),
    startConnectProxy({ path: path.join(dir, 'connect.sock') }),
    startConnectProxy({
      tls: { cert: tlsFiles.serving.certPem, key: tlsFiles.serving.keyPem, ca: tlsFiles.ca.certPem, requestCert: true, rejectUnauthorized: true },
    }),
    startKonnectivityServer(path.join(dir, 'konnectivity.sock')),
  ]);
});

afterAll(async () => {
  await Promise.all([etcd?.destroy(), tinyproxy?.stop(), udsProxy?.close(), mtlsProxy?.close(), tunnel?.close()]);
});

const connections: Array<[string, () => Connection]> = [
  ['HTTPConnect over TCP (tinyproxy)', () => ({ proxyProtocol: 'HTTPConnect', transport: { tcp: { url: `http://127.0.0.1:${tinyproxy.port}` } } })],
  ['HTTPConnect over a unix socket', () => ({ proxyProtocol: 'HTTPConnect', transport: { uds: { udsName: path.join(dir, 'connect.sock') } } })],
  [
    'HTTPConnect over mTLS',
    () => {
      const a = mtlsProxy.address as { host: string; port: number };
      return {
        proxyProtocol: 'HTTPConnect',
        transport: {
          tcp: {
            url: `https://${a.host}:${a.port}`,
            tlsConfig: { caBundle: tlsFiles.caFile, clientCert: tlsFiles.clientCertFile, clientKey: tlsFiles.clientKeyFile },
          },
        },
      };
    },
  ],
  ['GRPC (konnectivity) over a unix socket', () => ({ proxyProtocol: 'GRPC', transport: { uds: { udsName: path.join(dir, 'konnectivity.sock') } } })],
  ['Direct', () => ({ proxyProtocol: 'Direct' })],
];

test.each(connections)('etcd Put and Range through %s', async (name, connection) => {
  const config: EgressSelectorConfiguration = { egressSelections: [{ name: 'etcd', connection: connection() }] };
  const selector = createEgressSelector(config);
  const forwarder = await listenForwarder(selector.dialerFor('store'), '127.0.0.1', etcd.clientPort);
  const store = new EtcdStore({ servers: [etcd.url], connectTarget: forwarder.address, prefix: '/egress' });
  try {
    await store.put(`/${name}`, `via ${name}`);
    expect((await store.get(`/${name}`))!.value.toString()).toBe(`via ${name}`);
  } finally {
    await store.close();
    await forwarder.close();
  }
});

test('the tunnels really carried the etcd traffic', () => {
  expect(udsProxy.connections.some((c) => c.toString('latin1').startsWith(`CONNECT 127.0.0.1:${etcd.clientPort} HTTP/1.1\r\n`))).toBe(true);
  expect(mtlsProxy.connections.some((c) => c.toString('latin1').startsWith(`CONNECT 127.0.0.1:${etcd.clientPort} HTTP/1.1\r\n`))).toBe(true);
  expect(tunnel.streams.some((s) => s[0]?.dialRequest?.address === `127.0.0.1:${etcd.clientPort}`)).toBe(true);
});
