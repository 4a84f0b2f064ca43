// Starts the built API server binary (apps/apiserver/dist/main.js) as a user would, on a free loopback port,
// and gives tests HTTPS and kubectl access to it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startEtcd, waitFor, KUBECTL } from '@cl/testing';

export const MAIN = join(__dirname, '..', 'dist', 'main.js');

export interface ApiserverProcess {
  port: number;
  url: string;
  dir: string;
  child: ChildProcess;
  output(): string;
  /** The CA of the self-signed serving pair, for clients that verify the server. */
  servingCA(): string;
  exited: Promise<number | null>;
  kubeconfig: string;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
  cleanup(): Promise<void>;
}

export async function startApiserverProcess(extraArgs: string[] = [], opts: { dir?: string; port?: number; waitReady?: boolean } = {}): Promise<ApiserverProcess> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'cl-apiserver-'));
  const port = opts.port ?? (await freePort());
  let out = '';
  const child = spawn(process.execPath, [MAIN, `--secure-port=${port}`, '--bind-address=127.0.0.1', `--cert-dir=${join(dir, 'certs')}`, `--data-dir=${join(dir, 'data')}`, ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `https://127.0.0.1:${port}`;
  const proc: ApiserverProcess = {
    port,
    url,
    dir,
    child,
    exited,
    output: () => out,
    servingCA: () => {
      const pems = readFileSync(join(dir, 'certs', 'apiserver.crt'), 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g)!;
      return pems[pems.length - 1];
    },
    kubeconfig: join(dir, 'kubeconfig'),
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    async cleanup() {
      await proc.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  if (opts.waitReady !== false) {
    await Promise.race([
      waitFor(async () => ((await httpsGet(proc, '/readyz')).status === 200 ? true : undefined), `apiserver on ${port} to be ready`),
      exited.then((code) => {
        throw new Error(`apiserver exited with ${code}:\n${out}`);
      }),
    ]);
    writeKubeconfig(proc);
  }
  return proc;
}

/**
 * A kubeconfig that verifies the server's self-signed CA. Without `user` the client is anonymous: kubectl prompts
 * for a user name when a kubeconfig user has no credential at all, so the default names a basic-auth pair, which
 * this server (as kube-apiserver 1.33) has no authenticator for: the request presents no credential it knows and
 * is `system:anonymous`. (A placeholder bearer token would be a 401: a token nobody accepts is never anonymous.)
 */
export function writeKubeconfig(proc: ApiserverProcess, user: Record<string, string> = { username: 'anonymous', password: 'unused' }): string {
  const ca = Buffer.from(proc.servingCA()).toString('base64');
  const userLines = Object.entries(user).map(([k, v]) => `    ${k}: ${v}`);
  writeFileSync(
    proc.kubeconfig,
    ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: c', '  cluster:', `    server: ${proc.url}`, `    certificate-authority-data: ${ca}`, 'users:', '- name: u', '  user:', ...(userLines.length ? userLines : ['    {}']), 'contexts:', '- name: x', '  context: {cluster: c, user: u}', 'current-context: x', ''].join('\n'),
  );
  return proc.kubeconfig;
}

export interface HttpResult {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

export function httpsGet(proc: { port: number; servingCA?: () => string }, path: string, init: { method?: string; headers?: Record<string, string> } = {}): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: proc.port, path, method: init.method ?? 'GET', headers: init.headers, rejectUnauthorized: false, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export function kubectl(kubeconfig: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8', input: '', env: { ...process.env, HOME: tmpdir() } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The two store backends the resource API suites run on: the embedded store, and a real etcd they start. */
export const storeBackends: Array<[string, () => Promise<{ args: string[]; stop(): Promise<void> }>]> = [
  ['the embedded store', async () => ({ args: [], stop: async () => undefined })],
  [
    'etcd',
    async () => {
      const etcd = await startEtcd();
      return { args: [`--store-servers=${etcd.url}`], stop: () => etcd.destroy() };
    },
  ],
];

/** kubectl against the server `current()` returns: `k` runs it, `ok` also requires exit 0, `file` writes a manifest beside it. */
export function kubectlHelpers(current: () => ApiserverProcess) {
  const k = (...args: string[]) => kubectl(current().kubeconfig, args);
  const ok = (...args: string[]) => {
    const r = k(...args);
    if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return r.stdout;
  };
  const file = (name: string, text: string) => {
    const p = join(current().dir, name);
    writeFileSync(p, text);
    return p;
  };
  return { k, ok, file };
}
