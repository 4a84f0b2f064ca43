import type { Connection } from '@cl/config';
import { createEgressSelector } from './selector';

const one = (name: string, connection: Connection) => ({ egressSelections: [{ name, connection }] });

test.each<[string, Connection, string]>([
  ['HTTPConnect without transport', { proxyProtocol: 'HTTPConnect' }, 'Either a TCP or UDS transport must be specified'],
  ['GRPC over TCP only', { proxyProtocol: 'GRPC', transport: { tcp: { url: 'http://127.0.0.1:1' } } }, 'UDS transport must be specified for GRPC'],
  ['an unknown protocol', { proxyProtocol: 'Socks5' }, 'unrecognized service connection protocol "Socks5"'],
  ['a URL without port', { proxyProtocol: 'HTTPConnect', transport: { tcp: { url: 'http://proxy.example' } } }, 'invalid proxy server url "http://proxy.example": missing port in address'],
  [
    'a missing client key pair',
    { proxyProtocol: 'HTTPConnect', transport: { tcp: { url: 'https://127.0.0.1:8131', tlsConfig: { clientCert: '/nonexistent/c.crt', clientKey: '/nonexistent/c.key' } } } },
    'failed to read key pair /nonexistent/c.crt & /nonexistent/c.key, got open /nonexistent/c.crt: no such file or directory',
  ],
  [
    'a missing CA bundle',
    { proxyProtocol: 'HTTPConnect', transport: { tcp: { url: 'https://127.0.0.1:8131', tlsConfig: { caBundle: '/nonexistent/ca.crt' } } } },
    "failed to read cert file /nonexistent/ca.crt, got open /nonexistent/ca.crt: no such file or directory",
  ],
])('construction fails for %s', (_name, connection, detail) => {
  expect(() => createEgressSelector(one('cluster', connection))).toThrow(`failed to create dialer for egressSelection "cluster": ${detail}`);
});

test('an unknown selection name is refused', () => {
  expect(() => createEgressSelector(one('foo', { proxyProtocol: 'Direct' }))).toThrow('unrecognized service name foo');
});

test.each([
  ['master', 'controlplane'],
  ['store', 'etcd'],
] as const)('%s is the same selection as %s', (alias, name) => {
  const selector = createEgressSelector(one(name, { proxyProtocol: 'HTTPConnect', transport: { uds: { udsName: '/run/x.sock' } } }));
  expect(selector.dialerFor(alias)).toBe(selector.dialerFor(name));
  expect(selector.isDirect(alias)).toBe(false);
});

test('without configuration, and for Direct, every selection dials directly', () => {
  const none = createEgressSelector();
  const direct = createEgressSelector(one('cluster', { proxyProtocol: 'Direct' }));
  for (const name of ['controlplane', 'cluster', 'etcd'] as const) {
    expect(none.isDirect(name)).toBe(true);
    expect(direct.isDirect(name)).toBe(true);
  }
});
