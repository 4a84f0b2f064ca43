// A real tinyproxy (Debian's package) on a free loopback port, the HTTP CONNECT proxy of the egress tests.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from './ports';

export interface Tinyproxy {
  port: number;
  /** What tinyproxy logged (connections at LogLevel Connect). */
  log(): string;
  stop(): Promise<void>;
}

/** CONNECT is allowed only to `allowedConnectPorts` when given (tinyproxy's ConnectPort), to any port otherwise. */
export async function startTinyproxy(allowedConnectPorts: number[] = []): Promise<Tinyproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'cl-tinyproxy-'));
  const port = await freePort();
  const conf = join(dir, 'tinyproxy.conf');
  writeFileSync(
    conf,
    [
      'User nobody',
      'Group nogroup',
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 60',
      'MaxClients 50',
      'LogLevel Connect',
      'Allow 127.0.0.1',
      ...allowedConnectPorts.map((p) => `ConnectPort ${p}`),
      '',
    ].join('\n'),
  );
  const child = spawn('tinyproxy', ['-d', '-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (b: Buffer) => (log += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (log += b.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = () =>
    new Promise<true | undefined>((resolve) => {
      const s = connect({ host: '127.0.0.1', port }, () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(undefined));
    });
  await Promise.race([
    waitFor(listening, 'tinyproxy to listen', 300),
    exited.then(() => {
      throw new Error(`tinyproxy exited: ${log}`);
    }),
  ]);
  return {
    port,
    log: () => log,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
