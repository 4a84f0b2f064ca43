// A real etcd (Debian etcd-server) on free loopback ports with a temporary data dir, and a minimal KV client.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export interface Etcd {
  host: string;
  port: number;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export async function startEtcd(): Promise<Etcd> {
  const dir = mkdtempSync(path.join(tmpdir(), 'egress-etcd-'));
  const [client, peer] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(
    'etcd',
    [
      '--name=default',
      `--data-dir=${dir}`,
      `--listen-client-urls=http://127.0.0.1:${client}`,
      `--advertise-client-urls=http://127.0.0.1:${client}`,
      `--listen-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-cluster=default=http://127.0.0.1:${peer}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr!.on('data', (b: Buffer) => (log += b.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`etcd exited: ${log}`);
    if (log.includes('ready to serve client requests')) break;
    if (Date.now() > deadline) throw new Error(`etcd did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    host: '127.0.0.1',
    port: client,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface KvClient extends grpc.Client {
  Put(req: { key: Buffer; value: Buffer }, cb: (err: grpc.ServiceError | null) => void): void;
  Range(req: { key: Buffer }, cb: (err: grpc.ServiceError | null, res?: { kvs: Array<{ key: Buffer; value: Buffer }> }) => void): void;
}

const kvDefinition = protoLoader.loadSync(path.join(__dirname, '../fixtures/etcd-kv.proto'), { keepCase: true, longs: String, defaults: true });
const kvPackage = grpc.loadPackageDefinition(kvDefinition) as unknown as { etcdserverpb: { KV: grpc.ServiceClientConstructor } };

/** Puts `key=value` through a grpc-js channel to `target` and reads it back. */
export async function putAndGet(target: string, key: string, value: string): Promise<string> {
  const client = new kvPackage.etcdserverpb.KV(target, grpc.credentials.createInsecure(), {
    'grpc.use_local_subchannel_pool': 1,
  }) as unknown as KvClient;
  try {
    await new Promise<void>((resolve, reject) => client.Put({ key: Buffer.from(key), value: Buffer.from(value) }, (err) => (err ? reject(err) : resolve())));
    const res = await new Promise<{ kvs: Array<{ key: Buffer; value: Buffer }> }>((resolve, reject) =>
      client.Range({ key: Buffer.from(key) }, (err, r) => (err ? reject(err) : resolve(r!))),
    );
    return res.kvs.map((kv) => kv.value.toString()).join(',');
  } finally {
    client.close();
  }
}
