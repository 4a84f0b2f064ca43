// `kubectl port-forward` bytes/s through each cluster egress mode of the API server, against a direct loopback
// TCP copy to the same sink in the same run. Per mode: the built API server with that EgressSelectorConfiguration,
// the built node agent joined to it on a private containerd, a hostNetwork busybox pod, and `kubectl port-forward`
// (1.33, SPDY or WebSocket as kubectl negotiates) from a local port to the sink the bench runs on 127.0.0.1 (the
// pod shares the host's network). Rounds alternate the direct copy and the forward.
// Run: npx nx run-many -t build -p apiserver clet egress && node -r @swc-node/register bench/egress/port-forward.ts [megabytes=64] [rounds=3]
import { KUBECTL } from '@cl/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import type * as net from 'node:net';
import { CHUNK, freePort, kubectlEnv, median, MODES, sleep, startModeCluster, startSink, TARGETS, transfer, type Mode } from './cluster-modes';

const { startContainerd, ensureTestImages } = require('../../tools/containerd/harness.js');

const MB = Number(process.argv[2] ?? 64);
const ROUNDS = Number(process.argv[3] ?? 3);
const TOTAL = MB * 1024 * 1024;
const NODE = 'bench-egress-node';

async function measureMode(mode: Mode, busybox: string, endpoint: string, sinkPort: number) {
  const cluster = await startModeCluster(mode, { busybox, endpoint, nodeName: NODE, pod: 'pf' });
  let forward: ChildProcess | undefined;
  try {
    const localPort = await freePort();
    forward = spawn(KUBECTL, ['--kubeconfig', cluster.kubeconfig, 'port-forward', '--address=127.0.0.1', 'pod/pf', `${localPort}:${sinkPort}`], { env: kubectlEnv() });
    let out = '';
    forward.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    forward.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    for (let i = 0; !out.includes(`Forwarding from 127.0.0.1:${localPort}`); i++) {
      if (i > 300 || forward.exitCode !== null) throw new Error(`port-forward did not start: ${out}`);
      await sleep(100);
    }
    const direct: number[] = [];
    const forwarded: number[] = [];
    await transfer(localPort, TOTAL); // warm-up: the first connection of a forward opens its stream pair
    for (let round = 0; round < ROUNDS; round++) {
      direct.push(await transfer(sinkPort, TOTAL));
      forwarded.push(await transfer(localPort, TOTAL));
      if (process.env.BENCH_VERBOSE) console.error(`${mode.name} round ${round}: direct ${(direct[round] / 1048576).toFixed(0)} forward ${(forwarded[round] / 1048576).toFixed(0)} MiB/s`);
    }
    return { direct, forwarded };
  } finally {
    forward?.kill();
    await cluster.stop();
  }
}

async function main(): Promise<void> {
  const ctd = await startContainerd();
  const { busybox } = ensureTestImages(ctd.socket);
  const sink: net.Server = await startSink(TOTAL);
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
