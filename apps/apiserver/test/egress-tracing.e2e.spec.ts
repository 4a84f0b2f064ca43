// Outbound connections of the API server: etcd through the `store` egress selection (a real tinyproxy doing
// HTTP CONNECT), and request spans exported over OTLP/gRPC to a collector the test starts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCollector, startEtcd, startTinyproxy, waitFor, type Collector, type EtcdServer, type Tinyproxy } from '@cl/testing';
import { httpsGet, startApiserverProcess } from './harness';

jest.setTimeout(180_000);

const dir = mkdtempSync(join(tmpdir(), 'cl-apiserver-egress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('store traffic through the store egress selection', () => {
  let etcd: EtcdServer;
  let proxy: Tinyproxy;
  beforeAll(async () => {
    etcd = await startEtcd();
    proxy = await startTinyproxy([etcd.clientPort]);
  });
  afterAll(async () => {
    await proxy.stop();
    await etcd.destroy();
  });

  test('the API server reaches etcd only through the HTTP CONNECT proxy', async () => {
    const egress = join(dir, 'egress.yaml');
    writeFileSync(
      egress,
      [
        'apiVersion: apiserver.k8s.io/v1beta1',
        'kind: EgressSelectorConfiguration',
        'egressSelections:',
        '- name: store',
        '  connection:',
        '    proxyProtocol: HTTPConnect',
        '    transport:',
        '      tcp:',
        `        url: http://127.0.0.1:${proxy.port}`,
        '',
      ].join('\n'),
    );
    const api = await startApiserverProcess([`--store-servers=${etcd.url}`, `--egress-selector-config-file=${egress}`]);
    try {
      expect((await httpsGet(api, '/readyz/store')).body).toBe('ok');
      expect(proxy.log()).toContain(`CONNECT 127.0.0.1:${etcd.clientPort} HTTP/1.1`);
      const metrics = (await httpsGet(api, '/metrics')).body;
      expect(metrics).toMatch(/apiserver_egress_dialer_dial_duration_seconds_count\{[^}]*protocol="http_connect"[^}]*\} [1-9]/);
    } finally {
      await api.cleanup();
    }
  });
});

describe('tracing', () => {
  let collector: Collector;
  beforeAll(async () => (collector = await startCollector()));
  afterAll(() => collector.close());

  test('request spans reach the OTLP collector with upstream names, attributes and parents', async () => {
    const tracing = join(dir, 'tracing.yaml');
    writeFileSync(tracing, `apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\nendpoint: 127.0.0.1:${collector.port}\nsamplingRatePerMillion: 1000000\n`);
    const api = await startApiserverProcess([`--tracing-config-file=${tracing}`]);
    await httpsGet(api, '/livez?verbose', { headers: { 'user-agent': 'cl-e2e' } });
    // Spans are batched; a graceful stop flushes them.
    expect(await api.kill('SIGTERM')).toBe(0);
    await api.cleanup();
    const server = await waitFor(() => collector.spans.find((s) => s.kind === 'SPAN_KIND_SERVER' && s.attributes['http.target'] === '/livez?verbose'), 'the server span');
    expect(server).toMatchObject({ name: 'GET', scope: 'go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp' });
    expect(server.attributes).toMatchObject({ 'http.method': 'GET', 'http.scheme': 'https', 'user_agent.original': 'cl-e2e' });
    expect(server.resource['service.name']).toBe('apiserver');
    const authz = collector.spans.find((s) => s.name === 'authorization' && s.traceId === server.traceId);
    expect(authz?.parentSpanId).toBe(server.spanId);
    const authn = collector.spans.find((s) => s.name === 'authentication' && s.scope === 'k8s.op/apiserver/pkg/endpoints/filterlatency');
    expect(authn).toBeDefined();
  });
});
