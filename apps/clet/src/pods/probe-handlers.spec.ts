// Probe handlers against real servers on 127.0.0.1: HTTP, TCP and the gRPC health service.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runProbe, resolvePort } from './probe-handlers';

const noCri = { execSync: async () => ({ stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: 0 }) };
const target = (ports: Array<{ name?: string; containerPort: number }> = []) => ({ containerID: 'c', podIP: '127.0.0.1', ports });

let http: Server;
let httpPort: number;
beforeAll(async () => {
  http = createServer((req, res) => {
    if (req.url === '/slow') return; // never answers
    res.statusCode = req.url === '/healthz' ? 200 : req.url === '/moved' ? 302 : 500;
    res.end(req.headers['x-probe'] ?? '');
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  httpPort = (http.address() as AddressInfo).port;
});
afterAll(() => new Promise((r) => http.close(r)));

test.each([
  ['a 200', '/healthz', true, ''],
  ['a redirect', '/moved', true, ''],
  ['a 500', '/broken', false, 'HTTP probe failed with statuscode: 500'],
])('httpGet: %s', async (_n, path, success, message) => {
  const r = await runProbe({ httpGet: { path, port: 'web', httpHeaders: [{ name: 'X-Probe', value: 'hi' }] } }, target([{ name: 'web', containerPort: httpPort }]), noCri);
  expect(r.success).toBe(success);
  if (message) expect(r.message).toBe(message);
  else expect(r.message).toBe('hi');
});

test('httpGet: no answer within timeoutSeconds is a failure', async () => {
  const r = await runProbe({ httpGet: { path: '/slow', port: httpPort }, timeoutSeconds: 1 }, target(), noCri);
  expect(r).toEqual({ success: false, message: `Get "http://127.0.0.1:${httpPort}/slow": context deadline exceeded (Client.Timeout exceeded while awaiting headers)` });
});

test('tcpSocket: an open port succeeds, a closed one fails as upstream words it', async () => {
  expect((await runProbe({ tcpSocket: { port: httpPort } }, target(), noCri)).success).toBe(true);
  const closed = await new Promise<number>((r) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => r(p));
    });
  });
  expect(await runProbe({ tcpSocket: { port: closed } }, target(), noCri)).toEqual({ success: false, message: `dial tcp 127.0.0.1:${closed}: connect: connection refused` });
});

test('a named port that the container does not have is a failure naming it', () => {
  expect(() => resolvePort('metrics', [{ name: 'web', containerPort: 80 }])).toThrow('couldn\'t find port: metrics in ["web"]');
});

test('grpc: the health service answering SERVING succeeds, NOT_SERVING fails', async () => {
  const def = protoLoader.fromJSON({
    nested: { grpc: { nested: { health: { nested: { v1: { nested: {
      HealthCheckRequest: { fields: { service: { type: 'string', id: 1 } } },
      HealthCheckResponse: { fields: { status: { type: 'int32', id: 1 } } },
      Health: { methods: { Check: { requestType: 'HealthCheckRequest', responseType: 'HealthCheckResponse' } } },
    } } } } } } },
  } as Parameters<typeof protoLoader.fromJSON>[0]);
  const svc = (grpc.loadPackageDefinition(def) as unknown as { grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } } }).grpc.health.v1.Health.service;
  const server = new grpc.Server();
  server.addService(svc, { Check: (call: grpc.ServerUnaryCall<{ service: string }, unknown>, cb: grpc.sendUnaryData<{ status: number }>) => cb(null, { status: call.request.service === 'down' ? 2 : 1 }) });
  const port = await new Promise<number>((r, j) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? j(e) : r(p))));
  try {
    expect(await runProbe({ grpc: { port } }, target(), noCri)).toEqual({ success: true, message: '' });
    expect(await runProbe({ grpc: { port, service: 'down' } }, target(), noCri)).toEqual({ success: false, message: 'service unhealthy (responded with "NOT_SERVING")' });
  } finally {
    server.forceShutdown();
  }
});
