// Flags and feature gates that the built agent refuses at start because it cannot honour them (every one in
// one message, before anything serves), and --max-open-files on the agent's own process.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileDefaults } from '../src/config/defaults';
import type { CletFlags } from '../src/config/types';
import type { Logger } from '../src/log';
import { joinCluster } from '../src/node/join';
import { CletProcess, freePort, runClet, startClet } from './clet-harness';
// tools/ holds test fixtures, not an Nx project; specs are never built, so the relative import is safe.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { PrivateContainerd, startContainerd } from '../../../tools/containerd/harness';

jest.setTimeout(120_000);

let tmp: string;
let ctd: PrivateContainerd | undefined;
let proc: CletProcess | undefined;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-flag-effects-'));
});
afterAll(async () => {
  await proc?.stop();
  await ctd?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const base = async (endpoint = 'unix:///nonexistent/containerd.sock') => [
  '--fail-cgroupv1=false', '--fail-swap-on=false', `--root-dir=${path.join(tmp, 'root')}`, `--cert-dir=${path.join(tmp, 'pki')}`,
  `--container-runtime-endpoint=${endpoint}`, '--hostname-override=node1', '--address=127.0.0.1', `--port=${await freePort()}`,
  '--read-only-port=0', '--healthz-port=0',
];

const refusals: Array<[string, string]> = [
  ['--cloud-provider=external', '--cloud-provider=external is not supported by this agent: it has no cloud provider integration (no uninitialized taint, no cloud node name); leave it empty'],
  ['--contention-profiling', '--contention-profiling is not supported by this agent: it serves no profiling endpoints to collect block profiles from; leave it false'],
  ['--volume-plugin-dir=/opt/flex', '--volume-plugin-dir=/opt/flex is not supported by this agent: it runs no FlexVolume plugins; leave the default'],
  ['--volume-stats-agg-period=2m', '--volume-stats-agg-period=2m0s is not supported by this agent: it does not aggregate volume usage on a period; leave the default'],
  ['--experimental-mounter-path=/bin/mount', '--experimental-mounter-path=/bin/mount is not supported by this agent: it mounts no volumes through a mounter binary; leave it empty'],
  ['--cpu-manager-policy-options=full-pcpus-only=true', 'failed to initialize cpu manager: None policy: received unsupported options=map[full-pcpus-only:true]'],
  ['--cpu-manager-reconcile-period=20s', '--cpu-manager-reconcile-period=20s is not supported by this agent: with the only CPU manager policy it runs (none) there is nothing to reconcile; leave the default'],
  ['--topology-manager-policy-options=prefer-closest-numa-nodes=true', '--topology-manager-policy-options is not supported by this agent: with the only topology manager policy it runs (none) no option applies; leave them empty'],
  ['--topology-manager-scope=pod', '--topology-manager-scope=pod is not supported by this agent: with the only topology manager policy it runs (none) no scope applies; leave the default'],
  ['--reserved-cpus=0', '--reserved-cpus=0 is not supported by this agent: it neither pins CPUs nor derives the reserved CPU count from a CPU list; use --system-reserved/--cl-reserved cpu='],
  ['--reserved-memory=0:memory=1Gi', '--reserved-memory is not supported by this agent: it runs no memory manager Static policy to reserve NUMA memory for; leave it empty'],
  ['--qos-reserved=memory=50%', '--qos-reserved is not supported by this agent: it does not reserve memory at the QoS cgroup level; leave it empty'],
  ['--experimental-allocatable-ignore-eviction', '--experimental-allocatable-ignore-eviction is not supported by this agent: node allocatable always subtracts the hard eviction thresholds here; leave it false'],
  ['--kernel-memcg-notification', '--kernel-memcg-notification is not supported by this agent: the eviction manager polls memory usage and does not use memcg threshold notifications; leave it false'],
  ['--eviction-hard=allocatableMemory.available<1Gi', "the eviction signal allocatableMemory.available is not supported by this agent: its eviction manager does not measure the pods' memory against node allocatable; use memory.available"],
  ['--feature-gates=SidecarContainers=false', 'feature gate SidecarContainers=false is not supported by this agent: restartable init containers always run as sidecars; leave it true'],
  ['--feature-gates=InPlacePodVerticalScaling=true', 'feature gate InPlacePodVerticalScaling=true is not supported by this agent: it does not resize running containers; leave it false'],
];

test.each(refusals)('%s is refused at start', async (flag, message) => {
  const r = await runClet([...await base(), flag]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`"command failed" err="failed to run Clet: ${message.replace(/"/g, '\\"')}"`);
  expect(r.stderr).not.toContain('Started clet');
});

test('all refusals come at once, in one message', async () => {
  const r = await runClet([...await base(), ...refusals.map(([flag]) => flag)]);
  expect(r.code).toBe(1);
  const all = `failed to run Clet: [${refusals.map(([, m]) => m).join(', ')}]`;
  expect(r.stderr).toContain(all.replace(/"/g, '\\"'));
});

test('--max-open-files sets the agent\'s own open-file limit', async () => {
  ctd = await startContainerd();
  proc = await startClet([...await base(ctd.endpoint), '--max-open-files=4242']);
  expect(proc.child.exitCode).toBeNull();
  const limits = fs.readFileSync(`/proc/${proc.child.pid}/limits`, 'utf8');
  expect(limits).toMatch(/^Max open files\s+4242\s+4242\s+files/m);
  await proc.stop();
  proc = undefined;
});

/**
 * --event-qps/--event-burst on the agent's event client: a fake API server records when each event arrives;
 * the pods' events (one pod each, so the recorder's own spam filter does not hold any back) come out as a
 * burst, then 1/qps apart.
 */
describe('--event-qps and --event-burst', () => {
  let api: http.Server;
  let arrivals: number[] = [];
  beforeAll(async () => {
    api = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        if (req.method === 'POST' && /\/events$/.test(req.url ?? '')) arrivals.push(Date.now());
        res.writeHead(201, { 'Content-Type': 'application/json' });
        res.end(body || '{}');
      });
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise((r) => api.close(r)));

  async function sendEvents(eventRecordQPS: number, eventBurst: number, n: number): Promise<number[]> {
    arrivals = [];
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
    const cluster = joinCluster({
      api: { server: `http://127.0.0.1:${(api.address() as AddressInfo).port}` },
      config: { ...fileDefaults(), eventRecordQPS, eventBurst },
      flags: { hostnameOverride: 'node1', nodeLabels: {}, registerSchedulable: true, rootDir: tmp } as unknown as CletFlags,
      nodeName: 'node1', nodeIP: '127.0.0.1', version: 'v1.33.0', cri: {} as never, log: quiet,
      setApiPods: () => undefined, syncLoopHealthy: () => null,
      nodePressure: () => ({ memoryPressure: false, diskPressure: false, pidPressure: false }),
    });
    try {
      for (let i = 0; i < n; i++) {
        cluster.reports.events({ metadata: { name: `p${i}`, namespace: 'default', uid: `uid-${i}` } } as never, 'Normal', 'Started', `event ${i}`);
      }
      while (arrivals.length < n) await new Promise((r) => setTimeout(r, 50));
      return arrivals.slice(1).map((t, i) => t - arrivals[i]);
    } finally {
      await cluster.stop();
    }
  }

  test('qps 2, burst 3: three events at once, then one every 500 ms', async () => {
    const gaps = await sendEvents(2, 3, 6);
    // the 4th, 5th and 6th each waited for a token (a little slack for timer rounding)
    expect(gaps.slice(2).every((g) => g >= 450)).toBe(true);
    expect(gaps.slice(0, 2).every((g) => g < 450)).toBe(true);
  });

  test('qps 0 is client-go\'s default of 5 a second after a burst of 10 (as the flag\'s usage says)', async () => {
    const gaps = await sendEvents(0, 0, 12);
    // not unlimited: the 11th and 12th waited for a 200 ms token; the first ten went out as a burst, far
    // quicker together than ten 200 ms tokens
    expect(gaps.slice(9).every((g) => g >= 150)).toBe(true);
    expect(gaps.slice(0, 9).reduce((a, b) => a + b, 0)).toBeLessThan(900);
  });
});
