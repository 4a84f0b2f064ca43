import { ApiError } from '@cl/apimachinery';
import { isGlobalUnicast, podProxyLocation, splitSchemeNamePort, type PodForProxy } from './pod-proxy';

describe('pods/proxy location', () => {
  test.each<[string, ReturnType<typeof splitSchemeNamePort>]>([
    ['web', { scheme: 'http', name: 'web', port: '' }],
    ['web:8080', { scheme: 'http', name: 'web', port: '8080' }],
    ['https:web:8443', { scheme: 'https', name: 'web', port: '8443' }],
    ['http:web:', { scheme: 'http', name: 'web', port: '' }],
    ['ftp:web:21', undefined],
    [':8080', undefined],
    ['a:b:c:d', undefined],
  ])('id %j', (id, want) => {
    expect(splitSchemeNamePort(id)).toEqual(want);
  });

  test.each<[string, boolean]>([
    ['10.1.2.3', true], ['8.8.8.8', true], ['127.0.0.1', false], ['169.254.169.254', false], ['0.0.0.0', false], ['224.0.0.1', false],
    ['255.255.255.255', false], ['fd00::1', true], ['::1', false], ['fe80::1', false], ['not-an-ip', false],
  ])('global unicast %s: %s', (ip, want) => {
    expect(isGlobalUnicast(ip)).toBe(want);
  });

  const pod = (status: PodForProxy['status'], spec: PodForProxy['spec'] = {}): PodForProxy => ({ metadata: { name: 'p' }, spec, status });
  const refused = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return e instanceof ApiError ? `${e.status.code} ${e.status.message}` : String(e);
    }
    return 'allowed';
  };

  test.each<[string, PodForProxy, string]>([
    ['no IP yet', pod({}), '400 address not allowed'],
    ['a loopback pod IP', pod({ podIP: '127.0.0.1' }), '400 address not allowed'],
    ['a host-network pod on its node\'s loopback address', pod({ podIP: '127.0.0.1' }, { hostNetwork: true }), 'allowed'],
    ['a pod IP', pod({ podIP: '10.0.0.5' }), 'allowed'],
  ])('%s', (_name, p, want) => {
    expect(refused(() => podProxyLocation(p, { status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }] } }, { scheme: 'http', name: 'p', port: '' }))).toBe(want);
  });

  test('the port: the one asked, else the first container port, else the scheme\'s', () => {
    const p = pod({ podIP: '10.0.0.5' }, { containers: [{}, { ports: [{ containerPort: 9000 }] }] });
    expect(podProxyLocation(p, undefined, { scheme: 'http', name: 'p', port: '81' })).toEqual({ host: '10.0.0.5', port: 81 });
    expect(podProxyLocation(p, undefined, { scheme: 'http', name: 'p', port: '' })).toEqual({ host: '10.0.0.5', port: 9000 });
    expect(podProxyLocation(pod({ podIP: '10.0.0.5' }), undefined, { scheme: 'https', name: 'p', port: '' })).toEqual({ host: '10.0.0.5', port: 443 });
    expect(refused(() => podProxyLocation(p, undefined, { scheme: 'http', name: 'p', port: 'x' }))).toBe('400 invalid port "x"');
  });
});
