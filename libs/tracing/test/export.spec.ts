// Spans exported over OTLP/gRPC to a collector the test starts: parents, attributes, sampling, propagation.
import type { TracingConfiguration } from '@cl/config';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTracing, isTracingTrusted, serverSpanName, type Tracing } from '../src';
import { startCollector, type Collector } from '@cl/testing';

jest.setTimeout(60_000);

let collector: Collector;
let webhook: http.Server;
let webhookHeaders: http.IncomingHttpHeaders[] = [];
let api: http.Server;
let tracing: Tracing;
const open: Tracing[] = [];

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

function use(config: TracingConfiguration | undefined, extra: Partial<Parameters<typeof createTracing>[1]> = {}): Tracing {
  tracing = createTracing(config, { serviceName: 'apiserver', instanceId: 'apiserver-test', ...extra });
  open.push(tracing);
  return tracing;
}

/**
 * The API server's span shape in miniature: a root `authentication` span, then the server span parented by
 * upstream's rules (the x-groups header stands in for the authenticated user), a `Get` child, and a webhook call
 * that carries the trace context.
 */
function apiHandler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const t = tracing;
  const authn = t.startSpan('authentication', { parent: null, tracerName: 'k8s.op/apiserver/pkg/endpoints/filterlatency' });
  const groups = String(req.headers['x-groups'] ?? '').split(',');
  authn.end();
  const name = serverSpanName(req.method!, { isResourceRequest: true, apiPrefix: 'api', apiVersion: 'v1', namespace: 'default', resource: 'pods', name: 'foo' });
  const { span, context } = t.startServerSpan(req, { name, trusted: isTracingTrusted(groups), localParent: t.contextWith(authn, context0()) });
  t.withContext(context, () => {
    const get = t.startSpan('Get');
    t.withContext(t.contextWith(get), () => {
      const headers = t.inject({});
      const call = http.request({ host: '127.0.0.1', port: (webhook.address() as AddressInfo).port, method: 'POST', headers }, (r) => {
        r.resume();
        r.on('end', () => {
          get.end();
          span.end();
          res.end('ok');
        });
      });
      call.end();
    });
  });
}
const context0 = () => tracing.extract({});

async function request(headers: Record<string, string>): Promise<void> {
  const port = (api.address() as AddressInfo).port;
  await new Promise<void>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/api/v1/namespaces/default/pods/foo?pretty=true', headers: { 'user-agent': 'kubectl/v1.33.0', ...headers } }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
      .on('error', reject);
  });
  await tracing.forceFlush();
}

const spansOf = (traceId: string) => collector.spans.filter((s) => s.traceId === traceId);

beforeAll(async () => {
  collector = await startCollector();
  webhook = http.createServer((req, res) => {
    webhookHeaders.push(req.headers);
    res.end('{}');
  });
  api = http.createServer(apiHandler);
  await Promise.all([new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r)), new Promise<void>((r) => api.listen(0, '127.0.0.1', r))]);
});

afterAll(async () => {
  await Promise.all(open.map((t) => t.shutdown()));
  await collector.close();
  await new Promise((r) => webhook.close(r));
  await new Promise((r) => api.close(r));
});

beforeEach(() => {
  webhookHeaders = [];
});

test('a trusted caller’s sampled traceparent parents the server span; children and the webhook follow (TR-04)', async () => {
  use({ endpoint: collector.address });
  await request({ traceparent: `00-${TRACE}-${PARENT}-01`, 'x-groups': 'system:masters' });
  const spans = spansOf(TRACE);
  const server = spans.find((s) => s.kind === 'SPAN_KIND_SERVER')!;
  expect(server).toMatchObject({
    name: 'GET /api/v1/namespaces/{:namespace}/pods/{:name}',
    parentSpanId: PARENT,
    scope: 'go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp',
    resource: { 'service.name': 'apiserver', 'service.instance.id': 'apiserver-test' },
  });
  expect(server.attributes).toMatchObject({
    'http.method': 'GET',
    'http.scheme': 'http',
    'net.host.name': '127.0.0.1',
    'net.host.port': (api.address() as AddressInfo).port,
    'net.sock.peer.addr': '127.0.0.1',
    'user_agent.original': 'kubectl/v1.33.0',
    'net.protocol.version': '1.1',
    'http.target': '/api/v1/namespaces/default/pods/foo?pretty=true',
  });
  const get = spans.find((s) => s.name === 'Get')!;
  expect(get.parentSpanId).toBe(server.spanId);
  expect(webhookHeaders[0].traceparent).toBe(`00-${TRACE}-${get.spanId}-01`);
  // No rate: the root `authentication` span is never sampled.
  expect(collector.spans.some((s) => s.name === 'authentication')).toBe(false);
});

test('an unsampled traceparent exports nothing but still propagates (TR-05)', async () => {
  use({ endpoint: collector.address, samplingRatePerMillion: 1000000 });
  const trace = '11111111111111111111111111111111';
  await request({ traceparent: `00-${trace}-${PARENT}-00`, 'x-groups': 'system:masters' });
  expect(spansOf(trace)).toEqual([]);
  expect(webhookHeaders[0].traceparent).toMatch(new RegExp(`^00-${trace}-[0-9a-f]{16}-00$`));
});

test('an untrusted caller’s context is not a parent: without a rate nothing is sampled (TR-06)', async () => {
  use({ endpoint: collector.address });
  const trace = '22222222222222222222222222222222';
  const before = collector.spans.length;
  await request({ traceparent: `00-${trace}-${PARENT}-01`, 'x-groups': 'developers' });
  expect(collector.spans.length).toBe(before);
});

test('an untrusted caller gets a new root linked to its context (TR-07)', async () => {
  use({ endpoint: collector.address, samplingRatePerMillion: 1000000 });
  const trace = '33333333333333333333333333333333';
  await request({ traceparent: `00-${trace}-${PARENT}-01`, 'x-groups': 'developers' });
  const server = collector.spans.find((s) => s.kind === 'SPAN_KIND_SERVER' && s.links.some((l) => l.traceId === trace))!;
  expect(server.traceId).not.toBe(trace);
  expect(server.parentSpanId).toBe('');
  expect(server.links).toEqual([{ traceId: trace, spanId: PARENT }]);
});

test('without a traceparent a trusted request’s server span is a child of `authentication` (TR-08)', async () => {
  use({ endpoint: collector.address, samplingRatePerMillion: 1000000 });
  const before = collector.spans.length;
  await request({ 'x-groups': 'system:masters' });
  const fresh = collector.spans.slice(before);
  const authn = fresh.find((s) => s.name === 'authentication')!;
  const server = fresh.find((s) => s.kind === 'SPAN_KIND_SERVER')!;
  expect(authn.scope).toBe('k8s.op/apiserver/pkg/endpoints/filterlatency');
  expect(server.parentSpanId).toBe(authn.spanId);
  expect(server.traceId).toBe(authn.traceId);
});

test.each([
  ['sampled', '4bf92f3577b34da603ce929d0e0e4736', true],
  ['dropped', '4bf92f3577b34da6a3ce929d0e0e4736', false],
])('at 500000 per million a root with trace id %s… as Go decides (TR-09)', async (_name, traceId, exported) => {
  let n = 0;
  use(
    { endpoint: collector.address, samplingRatePerMillion: 500000 },
    { idGenerator: { generateTraceId: () => traceId, generateSpanId: () => (++n).toString(16).padStart(16, '0') } },
  );
  const span = tracing.startSpan('root', { parent: null });
  span.end();
  await tracing.forceFlush();
  expect(spansOf(traceId).some((s) => s.name === 'root')).toBe(exported);
});

test('without a configuration nothing is recorded, yet the incoming context reaches the webhook', async () => {
  use(undefined);
  const trace = '44444444444444444444444444444444';
  const before = collector.spans.length;
  await request({ traceparent: `00-${trace}-${PARENT}-01`, 'x-groups': 'system:masters' });
  expect(collector.spans.length).toBe(before);
  expect(webhookHeaders[0].traceparent).toBe(`00-${trace}-${PARENT}-01`);
});
