// `kubectl port-forward` bytes/s through each cluster egress mode of the API server, against a direct loopback
// TCP copy to the same sink in the same run. Per mode: the built API server with that EgressSelectorConfiguration,
// the built node agent joined to it on a private containerd, a hostNetwork busybox pod, and `kubectl port-forward`
// (1.33, SPDY or WebSocket as kubectl negotiates) from a local port to the sink the bench runs on 127.0.0.1 (the
// pod shares the host's network). Rounds alternate the direct copy and the forward.
// Run: npx nx run-many -t build -p apiserver clet egress && node -r @swc-node/register bench/egress/port-forward.ts [megabytes=64] [rounds=3]
import { startSquid, KUBECTL } from '@cl/testing';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { makeTlsFiles } from '../../libs/egress/test/support/servers';

const { startContainerd, ensureTestImages } = require('../../tools/containerd/harness.js');
const { freePort, startApiserver } = require('../lib/https-load');
const { startClet, removePodLogs } = require('../pod-start/api-mode');

const MB = Number(process.argv[2] ?? 64);
const ROUNDS = Number(process.argv[3] ?? 3);
const TOTAL = MB * 1024 * 1024;
const CHUNK = Buffer.alloc(256 * 1024, 7);
const NODE = 'bench-egress-node';
const TARGETS: Record<string, number> = { 'HTTPConnect mTLS (node proxy)': 0.6, 'GRPC uds (konnectivity)': 0.5 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counts bytes per connection and answers one byte once TOTAL arrived. */
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

/** Sends TOTAL bytes to 127.0.0.1:port in 256 KiB writes; bytes/s until the sink's answer. */
async function transfer(port: number): Promise<number> {
  const s = net.connect({ host: '127.0.0.1', port });
  s.setNoDelay(true);
  await new Promise<void>((resolve, reject) => s.once('connect', resolve).once('error', reject));
  const started = process.hrtime.bigint();
  const done = new Promise<void>((resolve, reject) => {
    s.once('data', () => resolve());
    s.once('error', reject);
    s.once('close', () => reject(new Error('closed before the sink answered')));
  });
  for (let sent = 0; sent < TOTAL; sent += CHUNK.length) if (!s.write(CHUNK)) await new Promise((r) => s.once('drain', r));
  await done;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  s.destroy();
  return TOTAL / seconds;
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

interface Mode {
  name: string;
  /** API server flags; `stop` ends what the mode started. */
  setUp(dir: string): Promise<{ args: string[]; stop(): Promise<void> | void }>;
}

const MODES: Mode[] = [
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

function kubectl(kubeconfig: string, ...args: string[]): string {
  const r = spawnSync(KUBECTL, ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8', env: { ...process.env, HOME: os.tmpdir() } });
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measureMode(mode: Mode, busybox: string, endpoint: string, sinkPort: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-egress-pf-'));
  const setup = await mode.setUp(dir);
  const api = await startApiserver(dir, 'apiserver', ['--kubelet-preferred-address-types=InternalIP,Hostname', ...setup.args]);
  const pems = fs.readFileSync(path.join(api.certDir, 'apiserver.crt'), 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g)!;
  const kubeconfig = path.join(dir, 'kubeconfig');
  fs.writeFileSync(kubeconfig, ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: c', '  cluster:', `    server: ${api.base}`,
    `    certificate-authority-data: ${Buffer.from(pems[pems.length - 1]).toString('base64')}`, 'users:', '- name: u', '  user: {token: bench}',
    'contexts:', '- name: x', '  context: {cluster: c, user: u}', 'current-context: x', ''].join('\n'));
  const request = async (method: string, p: string) => JSON.parse(kubectl(kubeconfig, 'get', '--raw', p));
  const agent = await startClet({ kubeconfig, request }, { dir: path.join(dir, 'clet'), endpoint, nodeName: NODE });
  let forward: ChildProcess | undefined;
  try {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pf' }, spec: { nodeName: NODE, hostNetwork: true, terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: busybox, imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'] }] } };
    fs.writeFileSync(path.join(dir, 'pod.json'), JSON.stringify(pod));
    kubectl(kubeconfig, 'create', '-f', path.join(dir, 'pod.json'));
    for (let i = 0; kubectl(kubeconfig, 'get', 'pod', 'pf', '-o', 'jsonpath={.status.phase}') !== 'Running'; i++) {
      if (i > 600) throw new Error('pod pf not Running after 60s');
      await sleep(100);
    }
    const localPort = await freePort();
    forward = spawn(KUBECTL, ['--kubeconfig', kubeconfig, 'port-forward', '--address=127.0.0.1', 'pod/pf', `${localPort}:${sinkPort}`], { env: { ...process.env, HOME: os.tmpdir() } });
    let out = '';
    forward.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    forward.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    for (let i = 0; !out.includes(`Forwarding from 127.0.0.1:${localPort}`); i++) {
      if (i > 300 || forward.exitCode !== null) throw new Error(`port-forward did not start: ${out}`);
      await sleep(100);
    }
    const direct: number[] = [];
    const forwarded: number[] = [];
    await transfer(localPort); // warm-up: the first connection of a forward opens its stream pair
    for (let round = 0; round < ROUNDS; round++) {
      direct.push(await transfer(sinkPort));
      forwarded.push(await transfer(localPort));
      if (process.env.BENCH_VERBOSE) console.error(`${mode.name} round ${round}: direct ${(direct[round] / 1048576).toFixed(0)} forward ${(forwarded[round] / 1048576).toFixed(0)} MiB/s`);
    }
    return { direct, forwarded };
  } finally {
    forward?.kill();
    await agent.stop();
    api.child.kill('SIGTERM');
    await new Promise((r) => (api.child.exitCode !== null ? r(null) : api.child.once('exit', r)));
    await setup.stop();
    removePodLogs(['pf']);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const ctd = await startContainerd();
  const { busybox } = ensureTestImages(ctd.socket);
  const sink = await startSink();
  const sinkPort = (sink.address() as net.AddressInfo).port;
  const results = [];
  try {
    for (const mode of MODES) {
      const { direct, forwarded } = await measureMode(mode, busybox, ctd.endpoint, sinkPort);
      results.push({
        name: mode.name,
        directTcpMiBps: +(Math.max(...direct) / 1048576).toFixed(1),
        portForwardMiBps: +(Math.max(...forwarded) / 1048576).toFixed(1),
        medianRoundRatio: +median(forwarded.map((f, i) => f / direct[i])).toFixed(3),
      });
    }
  } finally {
    await ctd.stop();
    sink.close();
  }
  const viaDirect = results.find((r) => r.name === 'direct')!;
  console.log(`kubectl port-forward throughput, ${MB} MiB per transfer in ${CHUNK.length / 1024} KiB writes, ${ROUNDS} rounds per mode`);
  console.log(`  ${'cluster egress mode'.padEnd(32)} ${'forward MiB/s'.padStart(13)} ${'direct TCP MiB/s'.padStart(16)}  forward/TCP  vs direct mode`);
  for (const r of results) {
    const vsMode = r.portForwardMiBps / viaDirect.portForwardMiBps;
    Object.assign(r, { ratioToDirectModeForward: +vsMode.toFixed(3) });
    console.log(`  ${r.name.padEnd(32)} ${String(r.portForwardMiBps).padStart(13)} ${String(r.directTcpMiBps).padStart(16)}  ${r.medianRoundRatio.toFixed(3).padStart(11)}  ${vsMode.toFixed(3).padStart(13)}`);
  }
  for (const [name, target] of Object.entries(TARGETS)) {
    const r = results.find((x) => x.name === name)! as (typeof results)[number] & { ratioToDirectModeForward: number };
    console.log(`  target ${name} >= ${target} x direct-mode forward: ${r.ratioToDirectModeForward >= target ? 'met' : 'NOT met'} (${r.ratioToDirectModeForward.toFixed(2)})`);
  }
  console.log(JSON.stringify({ bench: 'egress-port-forward', megabytes: MB, rounds: ROUNDS, results }));
  process.exit(0);
}

void main();
