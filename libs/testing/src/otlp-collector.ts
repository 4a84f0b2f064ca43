// An OTLP/gRPC trace collector for tests: a grpc-js server for TraceService/Export from the tests' own .proto.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import * as path from 'node:path';

interface WireValue {
  string_value?: string;
  bool_value?: boolean;
  int_value?: string;
  double_value?: number;
  value?: string;
}
interface WireKeyValue {
  key: string;
  value?: WireValue;
}
interface WireSpan {
  trace_id: Buffer;
  span_id: Buffer;
  parent_span_id: Buffer;
  name: string;
  kind: string;
  attributes: WireKeyValue[];
  links: Array<{ trace_id: Buffer; span_id: Buffer }>;
}
interface WireRequest {
  resource_spans: Array<{ resource?: { attributes: WireKeyValue[] }; scope_spans: Array<{ scope?: { name: string }; spans: WireSpan[] }> }>;
}

/** A received span with ids as hex and attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: string;
  scope: string;
  attributes: Record<string, string | number | boolean>;
  links: Array<{ traceId: string; spanId: string }>;
  resource: Record<string, string | number | boolean>;
}

export interface Collector {
  address: string;
  port: number;
  spans: ReceivedSpan[];
  exports: number;
  userAgents: string[];
  close(): Promise<void>;
}

const definition = protoLoader.loadSync(path.join(__dirname, '..', 'proto', 'otlp-trace.proto'), {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
});
const pkg = grpc.loadPackageDefinition(definition) as unknown as {
  opentelemetry: { proto: { collector: { trace: { v1: { TraceService: grpc.ServiceClientConstructor } } } } };
};

function plain(kvs: WireKeyValue[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const kv of kvs) {
    const v = kv.value;
    if (!v) continue;
    if (v.value === 'string_value') out[kv.key] = v.string_value!;
    else if (v.value === 'bool_value') out[kv.key] = v.bool_value!;
    else if (v.value === 'int_value') out[kv.key] = Number(v.int_value);
    else if (v.value === 'double_value') out[kv.key] = v.double_value!;
  }
  return out;
}

export async function startCollector(): Promise<Collector> {
  const server = new grpc.Server();
  const collector: Collector = { address: '', port: 0, spans: [], exports: 0, userAgents: [], close: async () => undefined };
  server.addService(pkg.opentelemetry.proto.collector.trace.v1.TraceService.service, {
    Export(call: grpc.ServerUnaryCall<WireRequest, unknown>, callback: grpc.sendUnaryData<unknown>) {
      collector.exports++;
      collector.userAgents.push(String(call.metadata.get('user-agent')[0] ?? ''));
      for (const rs of call.request.resource_spans) {
        const resource = plain(rs.resource?.attributes ?? []);
        for (const ss of rs.scope_spans) {
          for (const s of ss.spans) {
            collector.spans.push({
              traceId: s.trace_id.toString('hex'),
              spanId: s.span_id.toString('hex'),
              parentSpanId: s.parent_span_id.toString('hex'),
              name: s.name,
              kind: s.kind,
              scope: ss.scope?.name ?? '',
              attributes: plain(s.attributes),
              links: s.links.map((l) => ({ traceId: l.trace_id.toString('hex'), spanId: l.span_id.toString('hex') })),
              resource,
            });
          }
        }
      }
      callback(null, {});
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  collector.port = port;
  collector.address = `127.0.0.1:${port}`;
  collector.close = () => new Promise((resolve) => server.tryShutdown(() => resolve()));
  return collector;
}
