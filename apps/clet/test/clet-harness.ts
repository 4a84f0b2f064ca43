// Starts the built `clet` binary (apps/clet/dist/main.js) the way an operator would, and talks to it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';

export const CLET_BIN = join(__dirname, '..', 'dist', 'main.js');

import { freePort as freePortOf } from '@cl/testing';

export { freePortOf as freePort };

/**
 * Removes what a pod run by the binary left under its fixed default log paths: `/var/log/pods/<ns>_<pod>_<uid>`
 * and the `/var/log/containers/<pod>_<ns>_<container>-<id>.log` links (tests must leave nothing behind).
 */
export function removePodLogs(namespace: string, podName: string): void {
  const remove = (dir: string, prefix: string) => {
    if (!existsSync(dir)) return;
    for (const n of readdirSync(dir)) if (n.startsWith(prefix)) rmSync(join(dir, n), { recursive: true, force: true });
  };
  remove('/var/log/pods', `${namespace}_${podName}_`);
  remove('/var/log/containers', `${podName}_${namespace}_`);
}

export interface CletProcess {
  child: ChildProcess;
  stderr(): string;
  stdout(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/** Spawns clet; resolves once it logged "Started clet" or exited. */
export function startClet(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CletProcess> {
  const child = spawn(process.execPath, [CLET_BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const proc: CletProcess = {
    child,
    stderr: () => err,
    stdout: () => out,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
  return new Promise((resolve) => {
    // With split streams (--log-*-split-stream) info lines, "Started clet" among them, go to stdout.
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('"Started clet"')) resolve(proc);
    });
    child.stderr!.on('data', (d) => {
      err += d;
      if (err.includes('"Started clet"')) resolve(proc);
    });
    void exited.then(() => resolve(proc));
  });
}

/** Runs clet to completion (for flags that end it). */
export async function runClet(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = await startClet(args, env);
  const code = p.child.exitCode !== null ? p.child.exitCode : await p.stop();
  await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

export interface Reply {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface RequestOptions {
  ca?: string | Buffer;
  cert?: string;
  key?: string;
  token?: string;
  method?: string;
  maxVersion?: 'TLSv1.2' | 'TLSv1.3';
  ciphers?: string;
  body?: string;
}

export function get(url: string, opts: RequestOptions = {}): Promise<Reply> {
  const u = new URL(url);
  const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      u,
      {
        method: opts.method ?? 'GET',
        ca: opts.ca,
        cert: opts.cert,
        key: opts.key,
        // The self-signed serving pair is trusted through its own CA (appended to clet.crt) when given.
        rejectUnauthorized: opts.ca !== undefined,
        maxVersion: opts.maxVersion,
        ciphers: opts.ciphers,
        agent: false,
        headers: opts.token ? { Authorization: `Bearer ${opts.token}` } : {},
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Whether anything accepts TCP connections on 127.0.0.1:port. */
export function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export interface JoinedAgentOptions {
  /** The agent's state: its config file, root and certificate directories go here. */
  dir: string;
  /** The kubeconfig it joins the API server with (--clconfig). */
  kubeconfig: string;
  containerRuntimeEndpoint: string;
  nodeName: string;
  /** Its main server's port; a free one when absent. */
  port?: number;
  /** Config file lines beyond the shared ones (authentication anonymous and AlwaysAllow unless these set them). */
  configLines?: string[];
  args?: string[];
}

/**
 * The built agent joined to an API server as the cluster suites run it: a config file with fast status updates, no
 * swap or cgroup v1 refusal, servers on loopback only; fails if it exits at start.
 */
export async function startJoinedAgent(o: JoinedAgentOptions): Promise<CletProcess & { port: number }> {
  const lines = o.configLines ?? [];
  const config = join(o.dir, 'clet.yaml');
  writeFileSync(config, [
    'apiVersion: kubelet.config.k8s.io/v1beta1',
    'kind: KubeletConfiguration',
    ...(lines.some((l) => l.startsWith('authentication:')) ? [] : ['authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}']),
    ...(lines.some((l) => l.startsWith('authorization:')) ? [] : ['authorization: {mode: AlwaysAllow}']),
    'failSwapOn: false',
    'failCgroupV1: false',
    ...(lines.some((l) => l.startsWith('nodeStatusUpdateFrequency:')) ? [] : ['nodeStatusUpdateFrequency: 1s']),
    `containerRuntimeEndpoint: ${o.containerRuntimeEndpoint}`,
    'address: 127.0.0.1',
    'readOnlyPort: 0',
    'healthzPort: 0',
    ...lines,
    '',
  ].join('\n'));
  const port = o.port ?? (await freePortOf());
  const p = await startClet([
    `--config=${config}`, `--clconfig=${o.kubeconfig}`, `--root-dir=${join(o.dir, 'root')}`, `--cert-dir=${join(o.dir, 'pki')}`,
    `--hostname-override=${o.nodeName}`, `--port=${port}`, '--node-ip=127.0.0.1', ...(o.args ?? []),
  ]);
  if (p.child.exitCode !== null) throw new Error(`clet exited ${p.child.exitCode}: ${p.stderr()}`);
  return Object.assign(p, { port });
}
