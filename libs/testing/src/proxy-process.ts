// A forward proxy from a Debian package run in the foreground on a free loopback port, stopped (and its
// temporary directory removed) by `stop()`. Shared by the tinyproxy and squid helpers.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from './ports';

export interface ProxyProcess {
  port: number;
  pid: number;
  /** What the proxy printed. */
  log(): string;
  stop(): Promise<void>;
}

export interface ProxySpec {
  name: string;
  /** The configuration file's text for this port and directory (the directory is writable by everyone). */
  config(port: number, dir: string): string;
  /** The command line, given the configuration file. */
  command(configFile: string): [string, string[]];
}

export async function startProxyProcess(spec: ProxySpec): Promise<ProxyProcess> {
  const dir = mkdtempSync(join(tmpdir(), `cl-${spec.name}-`));
  // Proxies started as root drop to `nobody`, which must still be able to write their pid and log files here.
  chmodSync(dir, 0o777);
  const port = await freePort();
  const conf = join(dir, `${spec.name}.conf`);
  writeFileSync(conf, spec.config(port, dir));
  const [cmd, args] = spec.command(conf);
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
  try {
    await Promise.race([
      waitFor(listening, `${spec.name} to listen`, 600),
      exited.then(() => {
        throw new Error(`${spec.name} exited: ${log}`);
      }),
    ]);
  } catch (e) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    port,
    pid: child.pid!,
    log: () => log,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
