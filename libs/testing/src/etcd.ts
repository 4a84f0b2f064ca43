// A real etcd (Debian's etcd-server) on free loopback ports with its own data dir, for integration tests.
// It can be stopped and started again on the same ports and data, to test outages without data loss.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { freePort, waitFor } from './ports';

export interface EtcdServer {
  url: string;
  clientPort: number;
  dataDir: string;
  /** Stops etcd (SIGTERM; pass SIGKILL for a crash) keeping its data. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  start(): Promise<void>;
  /** Stops etcd and removes its data. */
  destroy(): Promise<void>;
}

function etcdBinary(): string {
  return process.env.ETCD_BIN ?? (require('node:fs').existsSync('/usr/bin/etcd') ? '/usr/bin/etcd' : 'etcd');
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

export async function startEtcd(): Promise<EtcdServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cl-etcd-'));
  const clientPort = await freePort();
  const peerPort = await freePort();
  const url = `http://127.0.0.1:${clientPort}`;
  let child: ChildProcess | null = null;
  let output = '';

  const start = async () => {
    const peer = `http://127.0.0.1:${peerPort}`;
    child = spawn(
      etcdBinary(),
      [
        '--name=cl-test',
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${url}`,
        `--advertise-client-urls=${url}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=cl-test=${peer}`,
        '--log-level=error',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ETCD_UNSUPPORTED_ARCH: process.env.ETCD_UNSUPPORTED_ARCH ?? '' } },
    );
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const exited = new Promise<never>((_, reject) => child!.once('exit', (code) => reject(new Error(`etcd exited with ${code}: ${output}`))));
    await Promise.race([waitFor(async () => ((await portOpen(clientPort)) ? true : undefined), 'etcd to listen'), exited]);
  };
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill(signal);
    });
  };
  await start();
  return {
    url,
    clientPort,
    dataDir,
    stop,
    start,
    async destroy() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
