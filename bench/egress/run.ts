// Throughput through each egress tunnel against a direct loopback TCP connection, measured in the same run.
// Run: node -r @swc-node/register bench/egress/run.ts [megabytes=256] [rounds=3]
// The sink, the client and the Node test proxies share this process's event loop (tinyproxy is its own process),
// so the Node-proxy rows measure the proxy and the client together; tinyproxy is the fair HTTP CONNECT comparison.
import { createEgressSelector, directDialer, type Dialer } from '@cl/egress';
import * as net from 'node:net';
import * as path from 'node:path';
import { startConnectProxy } from '../../libs/egress/test/support/connect-proxy';
import { startKonnectivityServer } from '../../libs/egress/test/support/konnectivity-server';
import { startTinyproxy } from '../../libs/testing/src';
import { makeTlsFiles, tempDir } from '../../libs/egress/test/support/servers';

const MB = Number(process.argv[2] ?? 256);
const ROUNDS = Number(process.argv[3] ?? 3);
const TOTAL = MB * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 7);

/** A sink that answers one byte once it has received TOTAL bytes on a connection. */
function startSink(): Promise<net.Server> {
  const server = net.createServer((s) => {
    let got = 0;
    s.on('data', (b: Buffer) => {
      got += b.length;
      if (got >= TOTAL) s.end('d');
    });
    s.on('error', () => s.destroy());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function transfer(dialer: Dialer, port: number): Promise<number> {
  const stream = await dialer.dial('127.0.0.1', port);
  const started = process.hrtime.bigint();
  const done = new Promise<void>((resolve, reject) => {
    stream.once('data', () => resolve());
    stream.once('error', reject);
  });
  let sent = 0;
  while (sent < TOTAL) {
    sent += CHUNK.length;
    if (!stream.write(CHUNK)) await new Promise((r) => stream.once('drain', r));
  }
  await done;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  stream.destroy();
  return TOTAL / seconds;
}

async function main(): Promise<void> {
  const sink = await startSink();
  const sinkPort = (sink.address() as net.AddressInfo).port;
  const dir = tempDir('bench-egress-');
  const tls = await makeTlsFiles();
  const tinyproxy = await startTinyproxy();
  const uds = await startConnectProxy({ path: path.join(dir, 'connect.sock') });
  const mtls = await startConnectProxy({ tls: { cert: tls.serving.certPem, key: tls.serving.keyPem, ca: tls.ca.certPem, requestCert: true } });
  uds.recordData = false;
  mtls.recordData = false;
  const grpcSock = path.join(dir, 'konnectivity.sock');
  const konnectivity = await startKonnectivityServer(grpcSock);
  const mtlsAddr = mtls.address as { host: string; port: number };
  const selector = (connection: Parameters<typeof createEgressSelector>[0]) => createEgressSelector(connection).dialerFor('cluster');
  const cases: Array<[string, Dialer]> = [
    ['direct TCP', directDialer],
    ['HTTPConnect tcp (tinyproxy)', selector({ egressSelections: [{ name: 'cluster', connection: { proxyProtocol: 'HTTPConnect', transport: { tcp: { url: `http://127.0.0.1:${tinyproxy.port}` } } } }] })],
    ['HTTPConnect uds (node proxy)', selector({ egressSelections: [{ name: 'cluster', connection: { proxyProtocol: 'HTTPConnect', transport: { uds: { udsName: path.join(dir, 'connect.sock') } } } }] })],
    [
      'HTTPConnect mTLS (node proxy)',
      selector({
        egressSelections: [
          {
            name: 'cluster',
            connection: {
              proxyProtocol: 'HTTPConnect',
              transport: { tcp: { url: `https://${mtlsAddr.host}:${mtlsAddr.port}`, tlsConfig: { caBundle: tls.caFile, clientCert: tls.clientCertFile, clientKey: tls.clientKeyFile } } },
            },
          },
        ],
      }),
    ],
    ['GRPC uds (konnectivity)', selector({ egressSelections: [{ name: 'cluster', connection: { proxyProtocol: 'GRPC', transport: { uds: { udsName: grpcSock } } } }] })],
  ];

  // Rounds interleave the cases so machine noise hits them alike; the best round of each counts.
  const best = new Map<string, number>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, dialer] of cases) {
      const rate = await transfer(dialer, sinkPort);
      if (process.env.BENCH_VERBOSE) console.error(`round ${round} ${name}: ${(rate / 1048576).toFixed(1)} MiB/s`);
      best.set(name, Math.max(best.get(name) ?? 0, rate));
    }
  }
  const direct = best.get('direct TCP')!;
  const results = cases.map(([name]) => ({ name, mbPerSecond: +(best.get(name)! / 1024 / 1024).toFixed(1), ratioToDirect: +(best.get(name)! / direct).toFixed(3) }));
  console.log(`egress throughput, ${MB} MiB per transfer, best of ${ROUNDS} rounds`);
  for (const r of results) console.log(`  ${r.name.padEnd(32)} ${String(r.mbPerSecond).padStart(8)} MiB/s   ${r.ratioToDirect.toFixed(3)} x direct`);
  const target = results.filter((r) => r.name.startsWith('HTTPConnect')).every((r) => r.ratioToDirect >= 0.9);
  console.log(`  HTTP CONNECT target (>= 0.9 x direct): ${target ? 'met' : 'NOT met'}`);
  console.log(JSON.stringify({ bench: 'egress', megabytes: MB, rounds: ROUNDS, results }));

  await Promise.all([tinyproxy.stop(), uds.close(), mtls.close(), konnectivity.close(), new Promise((r) => sink.close(r))]);
  process.exit(0);
}

void main();
