// `kubectl exec` bytes/s through each cluster egress mode of the API server: upload (N MiB on kubectl's stdin into
// `sh -c 'wc -c'`) and download (`head -c N /dev/zero` to kubectl's stdout), over kubectl 1.33's WebSocket
// (translated to SPDY by the API server) and over its SPDY fallback (relayed byte for byte). Every run's byte count
// is checked: the bench fails loudly when a byte is lost. Set-up per mode as port-forward.ts (cluster-modes.ts).
// Every mode's cluster runs at once (each on its own private containerd) and each round takes the modes in turn,
// so "vs direct mode" is the median over rounds of (mode / direct mode in the same round). Each round also copies
// N MiB over direct loopback TCP (printed, and per-round exec / TCP ratios are in the JSON line); exec runs at a few
// percent of that, bounded by the CPU of kubectl, the API server, the agent and the runtime. Times are kubectl's
// whole run (process start, exec set-up, transfer, exit); the set-up alone (`exec pod -- true`) is measured each
// round and printed beside them.
// Run: npx nx run-many -t build -p apiserver clet egress && node -r @swc-node/register bench/egress/exec.ts [megabytes=64] [rounds=3]
import { KUBECTL } from '@cl/testing';
import { spawn } from 'node:child_process';
import type * as net from 'node:net';
import { CHUNK, kubectlEnv, median, MiB, MODES, startModeCluster, startSink, TARGETS, transfer, type Mode, type ModeCluster } from './cluster-modes';

const { startContainerd, ensureTestImages } = require('../../tools/containerd/harness.js');

const MB = Number(process.argv[2] ?? 64);
const ROUNDS = Number(process.argv[3] ?? 3);
const TOTAL = MB * 1024 * 1024;
const NODE = 'bench-egress-node';
const PROTOCOLS = { websocket: 'true', spdy: 'false' } as const;
type Protocol = keyof typeof PROTOCOLS;
const CASES = ['upload', 'download'] as const;
type Case = (typeof CASES)[number];

/** Runs kubectl exec; seconds from spawn to exit, and the bytes kubectl printed (counted, not kept). */
function kubectlExec(kubeconfig: string, protocol: Protocol, args: string[], stdinBytes: number): Promise<{ seconds: number; stdoutBytes: number; stdoutHead: string }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(KUBECTL, ['--kubeconfig', kubeconfig, 'exec', ...(stdinBytes > 0 ? ['-i'] : []), ...args], {
      env: { ...kubectlEnv(), KUBECTL_REMOTE_COMMAND_WEBSOCKETS: PROTOCOLS[protocol] },
    });
    let stdoutBytes = 0;
    let stdoutHead = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      stdoutBytes += b.length;
      if (stdoutHead.length < 64) stdoutHead += b.subarray(0, 64).toString('latin1');
    });
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code !== 0) reject(new Error(`kubectl exec ${args.join(' ')} (${protocol}) exited ${code}: ${stderr}`));
      else resolve({ seconds, stdoutBytes, stdoutHead });
    });
    child.stdin.on('error', (e) => reject(new Error(`kubectl exec (${protocol}) stopped reading its stdin: ${e.message}; stderr: ${stderr}`)));
    void (async () => {
      for (let sent = 0; sent < stdinBytes; sent += CHUNK.length) if (!child.stdin.write(CHUNK)) await new Promise((r) => child.stdin.once('drain', r));
      child.stdin.end();
    })();
  });
}

/** One upload or download of TOTAL bytes; bytes/s, after checking that every byte arrived. */
async function execCase(kubeconfig: string, pod: string, protocol: Protocol, c: Case): Promise<number> {
  if (c === 'upload') {
    const r = await kubectlExec(kubeconfig, protocol, [pod, '--', 'sh', '-c', 'wc -c'], TOTAL);
    if (Number(r.stdoutHead.trim()) !== TOTAL) throw new Error(`upload (${protocol}): the pod counted ${JSON.stringify(r.stdoutHead.trim())} bytes of ${TOTAL}`);
    return TOTAL / r.seconds;
  }
  const r = await kubectlExec(kubeconfig, protocol, [pod, '--', 'head', '-c', String(TOTAL), '/dev/zero'], 0);
  if (r.stdoutBytes !== TOTAL) throw new Error(`download (${protocol}): kubectl printed ${r.stdoutBytes} bytes of ${TOTAL}`);
  return TOTAL / r.seconds;
}

type Key = `${Protocol} ${Case}`;
const KEYS: Key[] = (Object.keys(PROTOCOLS) as Protocol[]).flatMap((p) => CASES.map((c) => `${p} ${c}` as Key));

interface Running {
  mode: Mode;
  cluster: ModeCluster;
  ctd: { stop(): Promise<void> };
  tcp: number[];
  setupMs: number[];
  rates: Record<Key, number[]>;
}

/** Every mode's cluster at once (each on a private containerd of its own), so that rounds can interleave the modes. */
async function startAll(): Promise<Running[]> {
  const running: Running[] = [];
  try {
    for (const mode of MODES) {
      const ctd = await startContainerd();
      running.push({ mode, ctd, cluster: undefined as unknown as ModeCluster, tcp: [], setupMs: [], rates: Object.fromEntries(KEYS.map((k) => [k, [] as number[]])) as Record<Key, number[]> });
      const { busybox } = ensureTestImages(ctd.socket);
      running[running.length - 1].cluster = await startModeCluster(mode, { busybox, endpoint: ctd.endpoint, nodeName: NODE, pod: 'ex' });
    }
  } catch (e) {
    await stopAll(running);
    throw e;
  }
  return running;
}

async function stopAll(running: Running[]): Promise<void> {
  for (const r of running) {
    await r.cluster?.stop().catch((e: Error) => console.error(`stopping ${r.mode.name}: ${e.message}`));
    await r.ctd.stop();
  }
}

async function main(): Promise<void> {
  const sink: net.Server = await startSink(TOTAL);
  const sinkPort = (sink.address() as net.AddressInfo).port;
  const running = await startAll();
  try {
    for (const r of running) await kubectlExec(r.cluster.kubeconfig, 'websocket', [r.cluster.pod, '--', 'true'], 0); // warm-up
    // Each round: every mode in turn, each with a direct TCP copy, the exec set-up alone and the four cases.
    for (let round = 0; round < ROUNDS; round++) {
      for (const r of running) {
        r.tcp.push(await transfer(sinkPort, TOTAL));
        r.setupMs.push((await kubectlExec(r.cluster.kubeconfig, 'websocket', [r.cluster.pod, '--', 'true'], 0)).seconds * 1000);
        for (const key of KEYS) {
          const [protocol, c] = key.split(' ') as [Protocol, Case];
          r.rates[key].push(await execCase(r.cluster.kubeconfig, r.cluster.pod, protocol, c));
        }
        if (process.env.BENCH_VERBOSE) console.error(`round ${round} ${r.mode.name}: tcp ${MiB(r.tcp[round])} ${KEYS.map((k) => `${k} ${MiB(r.rates[k][round])}`).join(' ')} MiB/s`);
      }
    }
  } finally {
    await stopAll(running);
    sink.close();
  }
  const direct = running.find((r) => r.mode.name === 'direct')!;
  const results = running.map((r) => ({
    name: r.mode.name,
    tcpMiBps: MiB(median(r.tcp)),
    execSetupMs: Math.round(median(r.setupMs)),
    cases: Object.fromEntries(
      KEYS.map((k) => [k, { MiBps: MiB(median(r.rates[k])), vsDirectMode: +median(r.rates[k].map((x, i) => x / direct.rates[k][i])).toFixed(3), roundRatioToTcp: +median(r.rates[k].map((x, i) => x / r.tcp[i])).toFixed(4) }]),
    ),
  }));
  console.log(`kubectl exec throughput, ${MB} MiB per run, ${ROUNDS} rounds interleaving the modes (MiB/s: median over rounds, kubectl's whole run; in brackets: median of per-round ratios to the direct mode)`);
  console.log(`  ${'cluster egress mode'.padEnd(31)} ${'TCP'.padStart(6)} ${'setup'.padStart(7)} ${KEYS.map((k) => k.padStart(20)).join('')}`);
  for (const r of results) {
    const cells = KEYS.map((k) => `${r.cases[k].MiBps.toFixed(1)} (${r.cases[k].vsDirectMode.toFixed(2)})`.padStart(20)).join('');
    console.log(`  ${r.name.padEnd(31)} ${r.tcpMiBps.toFixed(0).padStart(6)} ${`${r.execSetupMs}ms`.padStart(7)} ${cells}`);
  }
  for (const [name, target] of Object.entries(TARGETS)) {
    const r = results.find((x) => x.name === name)!;
    const worst = Math.min(...KEYS.map((k) => r.cases[k].vsDirectMode));
    console.log(`  target ${name} >= ${target} x direct mode (worst exec case): ${worst >= target ? 'met' : 'NOT met'} (${worst.toFixed(2)})`);
  }
  console.log(JSON.stringify({ bench: 'egress-exec', megabytes: MB, rounds: ROUNDS, results }));
  process.exit(0);
}

main().catch((e: Error) => {
  console.error(`bench/egress/exec.ts FAILED: ${e.message}`);
  process.exit(1);
});
