import {
  loadEgressSelectorConfigurationFile,
  loadTracingConfigurationFile,
  validateEgressSelectorConfiguration,
  validateTracingConfiguration,
  type Connection,
  type EgressSelectorConfiguration,
  type TracingConfiguration,
} from '../src';
import { loadErrors, TempDir } from './helpers';

const tmp = new TempDir();
const cert = tmp.write('cert', 'client.crt');
const key = tmp.write('key', 'client.key');
afterAll(() => tmp.remove());

const sel = (connection: Connection, name = 'cluster') => ({ egressSelections: [{ name, connection }] });
const S = 'service.connection';
const https = (tlsConfig?: object) => ({ proxyProtocol: 'HTTPConnect', transport: { tcp: { url: 'https://proxy:8131', tlsConfig } } });

const egressCases: Array<[string, EgressSelectorConfiguration, string[], string[]?]> = [
  ['Direct', sel({ proxyProtocol: 'Direct' }), []],
  ['Direct with a transport', sel({ proxyProtocol: 'Direct', transport: {} }), [`${S}.transport: Invalid value: "direct": Transport config should be absent for direct connect`]],
  ['HTTPConnect without transport', sel({ proxyProtocol: 'HTTPConnect' }), [`${S}.transport: Required value: transport must be set for HTTPConnect`]],
  [
    'HTTPConnect with TCP and UDS',
    sel({ proxyProtocol: 'HTTPConnect', transport: { tcp: { url: 'http://h' }, uds: { udsName: '/s' } } }),
    [`${S}.tcp: Invalid value: apiserver.TCPTransport{URL:"http://h", TLSConfig:(*apiserver.TLSConfig)(nil)}: TCP and UDS cannot both be set`],
  ],
  ['HTTPConnect with neither', sel({ proxyProtocol: 'HTTPConnect', transport: {} }), [`${S}.tcp: Required value: One of TCP or UDS must be set`]],
  ['HTTPConnect over http', sel({ proxyProtocol: 'HTTPConnect', transport: { tcp: { url: 'http://proxy:8131' } } }), []],
  [
    'TLS config with http, even empty',
    sel({ proxyProtocol: 'HTTPConnect', transport: { tcp: { url: 'http://proxy:8131', tlsConfig: {} } } }),
    [`${S}.tlsConfig: Invalid value: "nil": TLSConfig config should not be present when using HTTP`],
  ],
  [
    'other URL schemes',
    sel({ proxyProtocol: 'HTTPConnect', transport: { tcp: { url: 'tcp://proxy:8131' } } }),
    [`${S}.url: Invalid value: "tcp://proxy:8131": supported connection protocols are http:// and https://`],
  ],
  ['https needs TLS config', sel(https()), [`${S}.tlsConfig: Required value: TLSConfig must be present when using HTTPS`]],
  [
    'https needs client cert and key',
    sel(https({})),
    [`${S}.tlsConfig.clientCert: Invalid value: "nil": Using TLS requires clientCert`, `${S}.tlsConfig.clientKey: Invalid value: "nil": Using TLS requires requires clientKey`],
  ],
  [
    'https TLS files must exist',
    sel(https({ caBundle: '/nonexistent/ca', clientCert: '/nonexistent/crt', clientKey: '/nonexistent/key' })),
    [
      `${S}.tlsConfig.caBundle: Invalid value: "/nonexistent/ca": TLS config ca bundle does not exist`,
      `${S}.tlsConfig.clientCert: Invalid value: "/nonexistent/crt": TLS client cert does not exist`,
      `${S}.tlsConfig.clientKey: Invalid value: "/nonexistent/key": TLS client key does not exist`,
    ],
  ],
  ['https with mTLS files', sel(https({ clientCert: cert, clientKey: key })), []],
  [
    'UDS name required',
    sel({ proxyProtocol: 'HTTPConnect', transport: { uds: { udsName: '' } } }),
    [`${S}.udsName: Invalid value: "nil": UDSName should be present for UDS connections`],
  ],
  ['GRPC without transport', sel({ proxyProtocol: 'GRPC' }), [`${S}.transport: Required value: transport must be set for GRPC`]],
  ['GRPC not over TCP', sel({ proxyProtocol: 'GRPC', transport: { tcp: { url: 'http://h' } } }), [`${S}.uds: Required value: UDS must be set with GRPC`]],
  ['GRPC over UDS', sel({ proxyProtocol: 'GRPC', transport: { uds: { udsName: '/run/konnectivity.sock' } } }), []],
  [
    'unknown protocol',
    sel({ proxyProtocol: 'SOCKS' }),
    [`${S}.protocol: Unsupported value: "SOCKS": supported values: "Direct", "HTTPConnect", "GRPC"`],
  ],
  ['empty protocol', sel({ proxyProtocol: '' }), [`${S}.protocol: Unsupported value: "": supported values: "Direct", "HTTPConnect", "GRPC"`]],
  [
    'names: case-insensitive duplicates and unsupported names',
    {
      egressSelections: [
        { name: 'Cluster', connection: { proxyProtocol: 'Direct' } },
        { name: 'cluster', connection: { proxyProtocol: 'Direct' } },
        { name: 'nodes', connection: { proxyProtocol: 'Direct' } },
      ],
    },
    [`${S}[1]: Duplicate value: "cluster"`, `${S}: Unsupported value: "nodes": supported values: "cluster", "controlplane", "etcd"`],
  ],
  [
    'master is only valid after decoding converts it',
    sel({ proxyProtocol: 'Direct' }, 'master'),
    [`${S}: Unsupported value: "master": supported values: "cluster", "controlplane", "etcd"`],
    [],
  ],
  [
    'store and etcd are the same selection',
    { egressSelections: [{ name: 'store', connection: { proxyProtocol: 'Direct' } }, { name: 'etcd', connection: { proxyProtocol: 'Direct' } }] },
    [`${S}[1]: Duplicate value: "etcd"`],
  ],
];

describe('EgressSelectorConfiguration validation', () => {
  test.each(egressCases)('validator: %s', (_n, c, expected) => {
    expect(validateEgressSelectorConfiguration(structuredClone(c)).map((e) => e.message)).toEqual(expected);
  });
  test.each(egressCases.flatMap(([n, c, e, fe]) => (['json', 'yaml'] as const).map((f) => [n, f, c, fe ?? e] as const)))(
    'file (%s, %s)',
    (_n, format, c, expected) => {
      const path = tmp.writeDoc({ apiVersion: 'apiserver.k8s.io/v1beta1', kind: 'EgressSelectorConfiguration', ...c }, format);
      expect(loadErrors(() => loadEgressSelectorConfigurationFile(path))).toEqual(expected);
    },
  );
  test('decoding renames master to controlplane and store to etcd', () => {
    const path = tmp.write(
      'apiVersion: apiserver.k8s.io/v1alpha1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: master\n  connection: {proxyProtocol: Direct}\n- name: store\n  connection: {proxyProtocol: Direct}\n- name: Master\n  connection: {proxyProtocol: Direct}\n',
    );
    expect(loadErrors(() => loadEgressSelectorConfigurationFile(path))).toEqual([
      `${S}: Unsupported value: "master": supported values: "cluster", "controlplane", "etcd"`,
    ]);
    const ok = tmp.write(
      'apiVersion: apiserver.k8s.io/v1alpha1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: master\n  connection: {proxyProtocol: Direct}\n- name: store\n  connection: {proxyProtocol: Direct}\n',
    );
    expect(loadEgressSelectorConfigurationFile(ok).egressSelections.map((s) => s.name)).toEqual(['controlplane', 'etcd']);
  });
  test('a missing file', () => {
    expect(loadErrors(() => loadEgressSelectorConfigurationFile('/nonexistent/egress.yaml'))).toEqual([
      'unable to read egress selector configuration from "/nonexistent/egress.yaml" [open /nonexistent/egress.yaml: no such file or directory]',
    ]);
  });
});

const tracingCases: Array<[string, TracingConfiguration, string[]]> = [
  ['empty', {}, []],
  ['rate 0 and a million', { samplingRatePerMillion: 1_000_000 }, []],
  ['negative rate', { samplingRatePerMillion: -1 }, ['samplingRatePerMillion: Invalid value: -1: sampling rate must be positive']],
  [
    'rate above a million',
    { samplingRatePerMillion: 1_000_001 },
    ['samplingRatePerMillion: Invalid value: 1000001: sampling rate per million must be less than or equal to one million'],
  ],
  ['host:port endpoint', { endpoint: 'localhost:4317' }, []],
  ['unix endpoint', { endpoint: 'unix:///run/otel.sock' }, []],
  [
    'unsupported scheme',
    { endpoint: 'http://collector:4317' },
    [
      'endpoint: Invalid value: "http://collector:4317": unsupported scheme: http.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md',
    ],
  ],
  ['unparseable endpoint', { endpoint: 'dns://x:%zz' }, ['endpoint: Invalid value: "dns://x:%zz": parse "dns://x:%zz": invalid port ":%zz" after host']],
];

describe('TracingConfiguration validation', () => {
  test.each(tracingCases)('validator: %s', (_n, c, expected) => {
    expect(validateTracingConfiguration(c).map((e) => e.message)).toEqual(expected);
  });
  test.each(tracingCases.flatMap(([n, c, e]) => (['json', 'yaml'] as const).map((f) => [n, f, c, e] as const)))(
    'file (%s, %s)',
    (_n, format, c, expected) => {
      const path = tmp.writeDoc({ apiVersion: 'apiserver.config.k8s.io/v1alpha1', kind: 'TracingConfiguration', ...c }, format);
      expect(loadErrors(() => loadTracingConfigurationFile(path))).toEqual(expected);
    },
  );
  test.each([
    ['an empty file', '', {}],
    ['no apiVersion or kind', 'endpoint: localhost:4317\n', { endpoint: 'localhost:4317' }],
  ])('tracing accepts %s', (_n, text, expected) => {
    const meta = { apiVersion: 'apiserver.config.k8s.io/v1beta1', kind: 'TracingConfiguration' };
    expect(loadTracingConfigurationFile(tmp.write(text))).toEqual({ ...meta, ...expected });
  });
  test('decode errors are wrapped', () => {
    const path = tmp.write('apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\nfoo: 1\n');
    expect(loadErrors(() => loadTracingConfigurationFile(path))).toEqual([
      'unable to decode tracing configuration data: strict decoding error: unknown field "foo"',
    ]);
  });
});
