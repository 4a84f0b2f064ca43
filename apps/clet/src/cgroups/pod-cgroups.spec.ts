// The pods' cgroup tree on a temporary directory standing in for /sys/fs/cgroup (CLET_TEST_SYS_FS_CGROUP):
// what lands in which file, for both cgroup versions.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { flagDefaults } from '../config/defaults';
import type { CletConfiguration } from '../config/types';
import type { Pod } from '../pods/api-types';
import { sandboxConfig, containerConfig, type RuntimeSpecContext } from '../pods/runtime-spec';
import { CgroupFs } from './cgroup-fs';
import { PodCgroups, cgroupSettings, type CgroupSettings } from './pod-cgroups';

const GiB = 1024 ** 3;
const capacity = { milliCpu: 2000, memoryBytes: 4 * GiB, pids: 10_000 };
let tmp: string;
const logs: string[] = [];
const log = (e: unknown) => logs.push(JSON.stringify(e));

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-cgroups-'));
  process.env.CLET_TEST_SYS_FS_CGROUP = tmp;
  logs.length = 0;
});
afterEach(() => {
  delete process.env.CLET_TEST_SYS_FS_CGROUP;
  fs.rmSync(tmp, { recursive: true, force: true });
});

function v1(): CgroupFs {
  for (const s of ['cpu', 'cpuacct', 'memory', 'pids']) fs.mkdirSync(path.join(tmp, s));
  return new CgroupFs(tmp, true);
}
const read = (...p: string[]) => fs.readFileSync(path.join(tmp, ...p), 'utf8');
const settings = (over: Partial<CletConfiguration> = {}): CgroupSettings => cgroupSettings({ ...flagDefaults(), ...over } as CletConfiguration);
const pod = (uid: string, resources: object = {}): Pod =>
  ({ metadata: { name: uid, namespace: 'default', uid }, spec: { containers: [{ name: 'c', image: 'busybox', resources }] } }) as unknown as Pod;

test('start makes kubepods with node allocatable and the two QoS cgroups', () => {
  PodCgroups.start(settings({ systemReserved: { cpu: '500m', memory: '1Gi' }, kubeReserved: { memory: '512Mi', pid: '100' } }), v1(), log, capacity);
  expect(read('cpu/kubepods/cpu.shares')).toBe('1536');
  expect(read('memory/kubepods/memory.limit_in_bytes')).toBe(String(4 * GiB - GiB - GiB / 2));
  expect(read('pids/kubepods/pids.max')).toBe('9900');
  expect(fs.existsSync(path.join(tmp, 'cpuacct/kubepods'))).toBe(true);
  expect(read('cpu/kubepods/besteffort/cpu.shares')).toBe('2');
  expect(read('cpu/kubepods/burstable/cpu.shares')).toBe('2');
});

test('without "pods" in --enforce-node-allocatable kubepods gets the whole capacity', () => {
  PodCgroups.start(settings({ enforceNodeAllocatable: ['none'], systemReserved: { memory: '1Gi' } }), v1(), log, capacity);
  expect(read('memory/kubepods/memory.limit_in_bytes')).toBe(String(4 * GiB));
  expect(read('cpu/kubepods/cpu.shares')).toBe('2048');
});

test('pod cgroups: where each QoS class goes, their limits, the Burstable shares, removal', async () => {
  const m = PodCgroups.start(settings({ cgroupRoot: '/', podPidsLimit: 64 }), v1(), log, capacity);
  const guaranteed = pod('g1', { limits: { cpu: '500m', memory: '64Mi' } });
  const burstable = pod('b1', { requests: { cpu: '250m' } });
  const bestEffort = pod('e1');
  expect([m.parentOf(guaranteed), m.parentOf(burstable), m.parentOf(bestEffort)]).toEqual(['/kubepods/podg1', '/kubepods/burstable/podb1', '/kubepods/besteffort/pode1']);
  for (const p of [guaranteed, burstable, bestEffort]) m.ensure(p);
  expect(read('cpu/kubepods/podg1/cpu.cfs_quota_us')).toBe('50000');
  expect(read('cpu/kubepods/podg1/cpu.cfs_period_us')).toBe('100000');
  expect(read('memory/kubepods/podg1/memory.limit_in_bytes')).toBe(String(64 * 1024 * 1024));
  expect(read('pids/kubepods/podg1/pids.max')).toBe('64');
  expect(read('cpu/kubepods/burstable/podb1/cpu.shares')).toBe('256');
  expect(fs.existsSync(path.join(tmp, 'memory/kubepods/burstable/podb1/memory.limit_in_bytes'))).toBe(false);
  expect(read('cpu/kubepods/besteffort/pode1/cpu.shares')).toBe('2');
  expect(read('cpu/kubepods/burstable/cpu.shares')).toBe('256');
  // Another Burstable pod adds its request; removal takes it back off.
  m.ensure(pod('b2', { requests: { cpu: '1' } }));
  expect(read('cpu/kubepods/burstable/cpu.shares')).toBe(String(256 + 1024));
  await m.remove('b2');
  expect(read('cpu/kubepods/burstable/cpu.shares')).toBe('256');
  expect(fs.existsSync(path.join(tmp, 'cpu/kubepods/burstable/podb2'))).toBe(false);
  // A pod this agent did not make in this life is looked for under every class.
  fs.mkdirSync(path.join(tmp, 'memory/kubepods/besteffort/podold'));
  await m.remove('old');
  expect(fs.existsSync(path.join(tmp, 'memory/kubepods/besteffort/podold'))).toBe(false);
  // The QoS tree itself stays.
  await m.remove('g1');
  expect(fs.existsSync(path.join(tmp, 'cpu/kubepods/podg1'))).toBe(false);
  expect(fs.existsSync(path.join(tmp, 'cpu/kubepods/burstable'))).toBe(true);
});

test('start removes empty pod cgroups left behind a while ago, never one with a process inside', () => {
  const cgfs = v1();
  const longAgo = new Date(Date.now() - 10 * 60_000);
  for (const d of ['kubepods/besteffort/podaa1/c1', 'kubepods/podbb2', 'kubepods/burstable/podcc3/c1', 'kubepods/besteffort/keep', 'kubepods/besteffort/poddd4']) {
    fs.mkdirSync(path.join(tmp, 'memory', d), { recursive: true });
  }
  fs.writeFileSync(path.join(tmp, 'memory/kubepods/burstable/podcc3/c1/cgroup.procs'), '1234\n');
  for (const d of ['kubepods/besteffort/podaa1', 'kubepods/podbb2', 'kubepods/burstable/podcc3']) fs.utimesSync(path.join(tmp, 'memory', d), longAgo, longAgo);
  PodCgroups.start(settings(), cgfs, log, capacity);
  expect(fs.existsSync(path.join(tmp, 'memory/kubepods/besteffort/podaa1'))).toBe(false);
  expect(fs.existsSync(path.join(tmp, 'memory/kubepods/podbb2'))).toBe(false);
  expect(fs.existsSync(path.join(tmp, 'memory/kubepods/burstable/podcc3/c1'))).toBe(true);
  expect(fs.existsSync(path.join(tmp, 'memory/kubepods/besteffort/keep'))).toBe(true);
  // Just made: maybe another agent's, about to get its sandbox.
  expect(fs.existsSync(path.join(tmp, 'memory/kubepods/besteffort/poddd4'))).toBe(true);
});

test('--cgroup-root puts the tree under it, and must exist', () => {
  const cgfs = v1();
  expect(() => PodCgroups.start(settings({ cgroupRoot: '/mine' }), cgfs, log, capacity)).toThrow('invalid configuration: cgroup-root "/mine" doesn\'t exist');
  for (const s of ['cpu', 'cpuacct', 'memory', 'pids']) fs.mkdirSync(path.join(tmp, s, 'mine'));
  const m = PodCgroups.start(settings({ cgroupRoot: '/mine' }), cgfs, log, capacity);
  expect(m.parentOf(pod('x'))).toBe('/mine/kubepods/besteffort/podx');
  expect(read('cpu/mine/kubepods/besteffort/cpu.shares')).toBe('2');
});

test('a missing v1 hierarchy is refused', () => {
  fs.mkdirSync(path.join(tmp, 'cpu'));
  expect(() => PodCgroups.start(settings(), new CgroupFs(tmp, true), log, capacity)).toThrow('failed to find subsystem mount for required subsystem: cpuacct, memory, pids');
});

test('system-reserved and cl-reserved limits go on their cgroups, which must exist', () => {
  const cgfs = v1();
  const s = settings({ enforceNodeAllocatable: ['pods', 'system-reserved', 'cl-reserved'], systemReserved: { cpu: '1', memory: '1Gi' }, kubeReserved: { memory: '256Mi' },
    systemReservedCgroup: '/system.slice', kubeReservedCgroup: '/cl.slice' });
  expect(() => PodCgroups.start(s, cgfs, log, capacity)).toThrow(
    '[Failed to enforce System Reserved Cgroup Limits on "/system.slice": "/system.slice" cgroup does not exist, Failed to enforce Kube Reserved Cgroup Limits on "/cl.slice": "/cl.slice" cgroup does not exist]');
  for (const sub of ['cpu', 'cpuacct', 'memory', 'pids']) for (const g of ['system.slice', 'cl.slice']) fs.mkdirSync(path.join(tmp, sub, g));
  PodCgroups.start(s, cgfs, log, capacity);
  expect(read('memory/system.slice/memory.limit_in_bytes')).toBe(String(GiB));
  expect(read('cpu/system.slice/cpu.shares')).toBe('1024');
  expect(read('memory/cl.slice/memory.limit_in_bytes')).toBe(String(256 * 1024 * 1024));
});

test('--cgroups-per-qos=false: no cgroups, no cgroup_parent', () => {
  const m = PodCgroups.start(settings({ cgroupsPerQOS: false, enforceNodeAllocatable: [] }), v1(), log, capacity);
  m.ensure(pod('g1', { limits: { cpu: '1', memory: '1Gi' } }));
  expect(m.parentOf(pod('g1'))).toBe('');
  expect(fs.readdirSync(path.join(tmp, 'cpu'))).toEqual([]);
});

test('cgroup v2: one tree, v2 file names, controllers enabled on the way down', () => {
  const m = PodCgroups.start(settings({ podPidsLimit: 10 }), new CgroupFs(tmp, false), log, capacity);
  fs.writeFileSync(path.join(tmp, 'cgroup.subtree_control'), '');
  m.ensure(pod('g1', { limits: { cpu: '1500m', memory: '1Gi' } }));
  m.ensure(pod('e1'));
  expect(read('kubepods/memory.max')).toBe(String(4 * GiB));
  expect(read('kubepods/pids.max')).toBe('10000');
  expect(read('kubepods/podg1/cpu.max')).toBe('150000 100000');
  expect(read('kubepods/podg1/memory.max')).toBe(String(GiB));
  expect(read('kubepods/podg1/pids.max')).toBe('10');
  expect(read('kubepods/podg1/cpu.weight')).toBe('59');
  expect(read('kubepods/besteffort/pode1/cpu.weight')).toBe('1');
  expect(read('cgroup.subtree_control')).toBe('+cpu +memory +pids');
});

test('the sandbox names the pod cgroup; containers get the CFS quota of the configured period', async () => {
  const m = PodCgroups.start(settings({ cpuCFSQuotaPeriod: '50ms' }), v1(), log, capacity);
  const ctx = { podLogsDir: path.join(tmp, 'logs'), containerLogsDir: path.join(tmp, 'containers'), rootDir: path.join(tmp, 'root'), resolvConf: '', clusterDNS: [],
    clusterDomain: '', nodeIP: '127.0.0.1', security: { seccompDefault: false, seccompProfileRoot: '' }, cgroups: m } as RuntimeSpecContext;
  const p = pod('b1', { limits: { cpu: '200m' }, requests: { cpu: '100m', memory: '10Mi' } });
  expect(sandboxConfig(ctx, p, 0).linux?.cgroupParent).toBe('/kubepods/burstable/podb1');
  expect((await containerConfig(ctx, p, p.spec.containers[0], 'busybox', 0, '', new Map())).linux?.resources).toMatchObject({ cpuShares: 102, cpuQuota: 10_000, cpuPeriod: 50_000 });
  const noQuota = { ...ctx, cgroups: PodCgroups.start(settings({ cpuCFSQuota: false }), new CgroupFs(tmp, true), log, capacity) };
  const res = (await containerConfig(noQuota, p, p.spec.containers[0], 'busybox', 0, '', new Map())).linux?.resources;
  expect(res).toMatchObject({ cpuShares: 102 });
  expect(res?.cpuQuota).toBeUndefined();
});
