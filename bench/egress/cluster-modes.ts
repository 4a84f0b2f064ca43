// The set-up shared by the cluster benches of bench/egress (port-forward.ts, exec.ts): the cluster egress modes of
// the API server, a one-node cluster from the built binaries per mode (API server with that
// EgressSelectorConfiguration, the node agent joined to it on a private containerd, as bench/pod-start does), a
// hostNetwork busybox pod to reach, and the direct loopback TCP copy each round is compared with.
import { startSquid, KUBECTL } from '@cl/testing';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { makeTlsFiles } from '../../libs/egress/test/support/servers';

const { startApiserver, freePort } = require('../lib/https-load');
export { freePort };
const { startClet, removePodLogs } = require('../pod-start/api-mode');

export const CHUNK = Buffer.alloc(256 * 1024, 7);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const MiB = (bytesPerSecond: number) => +(bytesPerSecond / 1048576).toFixed(1);

/** Counts bytes per connection and answers one byte once `total` arrived. */
export function startSink(total: number): Promise<net.Server> {
  const server = net.createServer((s) => {
    let got = 0;
    s.on('data', (b: Buffer) => {
      got += b.length;
      if (got >= total) s.end('d');
    });
    s.on('error', () => s.destroy());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Sends `total` bytes to 127.0.0.1:port in 256 KiB writes; bytes/s until the sink's answer. */
export async function transfer(port: number, total: number): Promise<number> {
  const s = net.connect({ host: '127.0.0.1', port });
  s.setNoDelay(true);
  await new Promise<void>((resolve, reject) => s.once('connect', resolve).once('error', reject));
  const started = process.hrtime.bigint();
  const done = new Promise<void>((resolve, reject) => {
    s.once('data', () => resolve());
    s.once('error', reject);
    s.once('close', () => reject(new Error('closed before the sink answered')));
  });
  for (let sent = 0; sent < total; sent += CHUNK.length) if (!s.write(CHUNK)) await new Promise((r) => s.once('drain', r));
  await done;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  s.destroy();
  return total / seconds;
}

/** A child process whose first stdout line (or one matching `ready`) says it is up. */
async function startChild(args: string[], ready: RegExp): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = out.split('\n').find((l) => ready.test(l));
      if (m) resolve(m);
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
  return { child, line };
}

const egressFile = (dir: string, connection: string[]) => {
  const file = path.join(dir, 'egress.yaml');
  fs.writeFileSync(file, ['apiVersion: apiserver.k8s.io/v1beta1', 'kind: EgressSelectorConfiguration', 'egressSelections:', '- name: cluster', '  connection:', ...connection.map((l) => `    ${l}`), ''].join('\n'));
  return `--egress-selector-config-file=${file}`;
};

export interface Mode {
  name: string;
  /** API server flags; `stop` ends what the mode started. */
  setUp(dir: string): Promise<{ args: string[]; stop(): Promise<void> | void }>;
}

/** The targets of issue 17, judged against the direct mode. */
export const TARGETS: Record<string, number> = { 'HTTPConnect mTLS (node proxy)': 0.6, 'GRPC uds (konnectivity)': 0.5 };

export const MODES: Mode[] = [
  { name: 'direct', setUp: async () => ({ args: [], stop: () => undefined }) },
  {
    name: 'HTTPConnect tcp (squid)',
    setUp: async (dir) => {
      const squid = await startSquid();
      return { args: [egressFile(dir, ['proxyProtocol: HTTPConnect', 'transport:', '  tcp:', `    url: http://127.0.0.1:${squid.port}`])], stop: () => squid.stop() };
    },
  },
  {
    name: 'HTTPConnect mTLS (node proxy)',
    setUp: async (dir) => {
      const tls = await makeTlsFiles();
      const serving = path.join(dir, 'proxy.crt');
      const key = path.join(dir, 'proxy.key');
      fs.writeFileSync(serving, tls.serving.certPem);
      fs.writeFileSync(key, tls.serving.keyPem);
      const { child, line } = await startChild([path.join(__dirname, 'mtls-proxy.ts'), serving, key, tls.caFile], /^\d+$/);
      const tlsConfig = ['    tlsConfig:', `      caBundle: ${tls.caFile}`, `      clientCert: ${tls.clientCertFile}`, `      clientKey: ${tls.clientKeyFile}`];
      return {
        args: [egressFile(dir, ['proxyProtocol: HTTPConnect', 'transport:', '  tcp:', `    url: https://127.0.0.1:${line.trim()}`, ...tlsConfig])],
        stop: () => void child.kill('SIGTERM'),
      };
    },
  },
  {
    name: 'GRPC uds (konnectivity)',
    setUp: async (dir) => {
      const socket = path.join(dir, 'konnectivity.sock');
      const { child } = await startChild([path.join(__dirname, '../../libs/egress/test/support/konnectivity-server-main.ts'), socket], /^listening /);
      return { args: [egressFile(dir, ['proxyProtocol: GRPC', 'transport:', '  uds:', `    udsName: ${socket}`])], stop: () => void child.kill('SIGTERM') };
    },
  },
];

export const kubectlEnv = () => ({ ...process.env, HOME: os.tmpdir() });

export function kubectl(kubeconfig: string, ...args: string[]): string {
  const r = spawnSync(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8', env: kubectlEnv() });
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

export interface ModeCluster {
  kubeconfig: string;
  /** The running hostNetwork busybox pod (`sleep 3600`). */
  pod: string;
  stop(): Promise<void>;
}

/** A one-node cluster whose API server reaches the agent through `mode`, with a running hostNetwork busybox pod. */
export async function startModeCluster(mode: Mode, o: { busybox: string; endpoint: string; nodeName: string; pod: string }): Promise<ModeCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-egress-cluster-'));
  const setup = await mode.setUp(dir);
  const api = await startApiserver(dir, 'apiserver', ['--kubelet-preferred-address-types=InternalIP,Hostname', ...setup.args]);
  const pems = fs.readFileSync(path.join(api.certDir, 'apiserver.crt'), 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g)!;
  const kubeconfig = path.join(dir, 'kubeconfig');
  fs.writeFileSync(kubeconfig, ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: c', '  cluster:', `    server: ${api.base}`,
    `    certificate-authority-data: ${Buffer.from(pems[pems.length - 1]).toString('base64')}`, 'users:', '- name: u', '  user: {token: bench}',
    'contexts:', '- name: x', '  context: {cluster: c, user: u}', 'current-context: x', ''].join('\n'));
  const request = async (_method: string, p: string) => JSON.parse(kubectl(kubeconfig, 'get', '--raw', p));
  const agent = await startClet({ kubeconfig, request }, { dir: path.join(dir, 'clet'), endpoint: o.endpoint, nodeName: o.nodeName });
  const stop = async () => {
    await agent.stop();
    api.child.kill('SIGTERM');
    await new Promise((r) => (api.child.exitCode !== null ? r(null) : api.child.once('exit', r)));
    await setup.stop();
    removePodLogs([o.pod]);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: o.pod }, spec: { nodeName: o.nodeName, hostNetwork: true, terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: o.busybox, imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'] }] } };
    fs.writeFileSync(path.join(dir, 'pod.json'), JSON.stringify(pod));
    kubectl(kubeconfig, 'create', '-f', path.join(dir, 'pod.json'));
    for (let i = 0; kubectl(kubeconfig, 'get', 'pod', o.pod, '-o', 'jsonpath={.status.phase}') !== 'Running'; i++) {
      if (i > 600) throw new Error(`pod ${o.pod} not Running after 60s`);
      await sleep(100);
    }
  } catch (e) {
    await stop();
    throw e;
  }
  return { kubeconfig, pod: o.pod, stop };
}
