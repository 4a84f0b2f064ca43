import type { IncomingMessage } from 'node:http';
import { nodeAttributes, nodeSubresources } from './auth';
import { tlsCipherList, tlsMinVersion } from './tls-options';

describe('request path to nodes/<subresource> (pkg/kubelet/server/auth.go)', () => {
  test.each([
    ['/pods', false, ['proxy']],
    ['/pods', true, ['pods', 'proxy']],
    ['/runningpods/', true, ['pods', 'proxy']],
    ['/podsx', true, ['proxy']],
    ['/healthz', true, ['healthz', 'proxy']],
    ['/healthz/ping', false, ['proxy']],
    ['/configz', true, ['configz', 'proxy']],
    ['/stats/summary', false, ['stats']],
    ['/stats', true, ['stats']],
    ['/metrics', false, ['metrics']],
    ['/metrics/cadvisor', true, ['metrics']],
    ['/logs/syslog', false, ['log']],
    ['/checkpoint/ns/pod/c', false, ['checkpoint']],
    ['/exec/ns/pod/c', true, ['proxy']],
  ])('%s (fine-grained %s)', (path, fine, want) => expect(nodeSubresources(path, fine)).toEqual(want));

  test.each([
    ['GET', 'get'],
    ['POST', 'create'],
    ['PUT', 'update'],
    ['PATCH', 'patch'],
    ['DELETE', 'delete'],
    ['OPTIONS', ''],
  ])('%s is verb %j', (method, verb) => {
    const user = { username: 'u', uid: '', groups: [], extra: {} };
    expect(nodeAttributes(user, { method } as IncomingMessage, '/pods', 'node1', 'proxy')).toMatchObject({
      verb,
      apiVersion: 'v1',
      apiGroup: '',
      resource: 'nodes',
      subresource: 'proxy',
      name: 'node1',
      namespace: '',
    });
  });
});

describe('TLS settings', () => {
  test.each([
    ['', 'TLSv1.2'],
    ['VersionTLS10', 'TLSv1'],
    ['VersionTLS11', 'TLSv1.1'],
    ['VersionTLS12', 'TLSv1.2'],
    ['VersionTLS13', 'TLSv1.3'],
  ])('%j', (name, v) => expect(tlsMinVersion(name)).toBe(v));
  test('unknown version', () => expect(() => tlsMinVersion('TLS1.2')).toThrow('unknown tls version "TLS1.2"'));
  test('cipher names map to OpenSSL and keep TLS 1.3', () => {
    expect(tlsCipherList([])).toBeUndefined();
    expect(tlsCipherList(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_RSA_WITH_AES_256_CBC_SHA'])).toBe(
      'ECDHE-RSA-AES128-GCM-SHA256:AES256-SHA:TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256',
    );
    expect(() => tlsCipherList(['TLS_FOO'])).toThrow("Cipher suite TLS_FOO not supported or doesn't exist");
  });
});
