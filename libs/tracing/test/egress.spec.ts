// The exporter's connection goes through the controlplane egress selection (TR-11).
import { createEgressSelector } from '@cl/egress';
import { mkdtempSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createTracing } from '../src';
import { startCollector, type Collector } from '@cl/testing';

jest.setTimeout(60_000);

let collector: Collector;
let proxy: net.Server;
const connects: string[] = [];
let sock: string;

beforeAll(async () => {
  collector = await startCollector();
  sock = path.join(mkdtempSync(path.join(tmpdir(), 'tracing-egress-')), 'proxy.sock');
  // A minimal CONNECT proxy on a unix socket that records the request line and forwards.
  proxy = net.createServer((client) => {
    client.once('data', (head: Buffer) => {
      const line = head.toString('latin1').split('\r\n')[0];
      connects.push(line);
      const [host, port] = line.split(' ')[1].split(':');
      const upstream = net.connect({ host, port: Number(port) }, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        client.pipe(upstream);
        upstream.pipe(client);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      client.on('close', () => upstream.destroy());
    });
  });
  await new Promise<void>((r) => proxy.listen(sock, r));
});

afterAll(async () => {
  await collector.close();
  await new Promise((r) => proxy.close(r));
});

test('spans reach the collector through the HTTPConnect tunnel', async () => {
  const selector = createEgressSelector({
    egressSelections: [{ name: 'controlplane', connection: { proxyProtocol: 'HTTPConnect', transport: { uds: { udsName: sock } } } }],
  });
  const tracing = createTracing(
    { endpoint: collector.address, samplingRatePerMillion: 1000000 },
    { serviceName: 'apiserver', egress: selector.dialerFor('controlplane') },
  );
  try {
    tracing.startSpan('through-the-tunnel', { parent: null }).end();
    await tracing.forceFlush();
    expect(collector.spans.map((s) => s.name)).toContain('through-the-tunnel');
    expect(connects).toContain(`CONNECT ${collector.address} HTTP/1.1`);
  } finally {
    await tracing.shutdown();
  }
});
