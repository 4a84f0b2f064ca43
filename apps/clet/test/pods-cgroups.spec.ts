// The built agent's cgroups on this (cgroup v1) host, with a private containerd: each pod's cgroup under its QoS
// class with the limits of its spec, the containers' processes inside it, the QoS cgroups' shares, the pod cgroup
// removed with the pod, the agent's own OOM score, and the settings it refuses to start with.
// The agent runs under its own --cgroup-root, made and removed here, so other agents on the host are untouched.
import { waitFor as poll } from '@cl/testing';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CgroupFs } from '../src/cgroups';
import { CletProcess, freePort, get, runClet, startClet } from './clet-harness';
// tools/ holds test fixtures, not an Nx project; specs are never built, so the relative import is safe.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ensureTestImages, PrivateContainerd, startContainerd } from '../../../tools/containerd/harness';

jest.setTimeout(180_000);

const SYS = '/sys/fs/cgroup';
const ROOT = `/cl-e2e-${crypto.randomBytes(4).toString('hex')}`;
const SUBSYSTEMS = ['cpu', 'cpuacct', 'memory', 'pids'];
const POD_CIDR = '10.213.0.0/16';

interface PodJson { metadata: { name: string; uid: string }; status: { phase?: string; reason?: string; containerStatuses?: Array<{ containerID?: string }> } }

let ctd: PrivateContainerd;
let images: { busybox: string };
let tmp: string;
let manifests: string;
let proc: CletProcess | undefined;
let ro = 0;

beforeAll(async () => {
  ctd = await startContainerd();
  images = ensureTestImages(ctd.socket);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-pods-cgroups-'));
  manifests = path.join(tmp, 'manifests');
  fs.mkdirSync(manifests);
  for (const s of SUBSYSTEMS) fs.mkdirSync(path.join(SYS, s, ROOT));
});

afterAll(async () => {
  await proc?.stop();
  await ctd?.stop();
  // A failed test may leave its containers running; they are this suite's own (in its own cgroup root).
  for (const pid of processesUnder(path.join(SYS, 'memory', ROOT))) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch { /* gone already */ }
  }
  await new Promise((r) => setTimeout(r, 500));
  // The runtime made the pods' cgroups in every hierarchy; with the containers gone they are empty and go too.
  const left = new CgroupFs(SYS, true).remove(ROOT);
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  for (const d of fs.readdirSync('/var/log/pods')) if (d.includes('-cgroups-node1_')) fs.rmSync(path.join('/var/log/pods', d), { recursive: true, force: true });
  expect(left).toEqual([]);
});

function common(name: string): string[] {
  return [
    '--fail-cgroupv1=false', '--fail-swap-on=false', `--root-dir=${path.join(tmp, name, 'root')}`, `--cert-dir=${path.join(tmp, name, 'pki')}`,
    `--container-runtime-endpoint=${ctd.endpoint}`, '--hostname-override=cgroups-node1', '--address=127.0.0.1', '--healthz-port=0',
  ];
}

async function podList(): Promise<PodJson[]> {
  const r = await get(`http://127.0.0.1:${ro}/pods`);
  return (JSON.parse(r.body) as { items: PodJson[] }).items;
}

function waitFor<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false): Promise<T> {
  return poll(fn, what, 600, 200).catch((e: Error) => {
    throw new Error(`${e.message}; clet stderr:\n${proc?.stderr().slice(-3000)}`);
  });
}

function writePod(name: string, resources: object): void {
  const pod = {
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: {
      hostNetwork: true, terminationGracePeriodSeconds: 1,
      containers: [{ name: 'c', image: images.busybox, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'exec sleep 3600'], resources }],
    },
  };
  fs.writeFileSync(path.join(manifests, `${name}.json`), JSON.stringify(pod));
}

const running = (name: string) => waitFor(`${name} running`, async () => (await podList()).find((p) => p.metadata.name === `${name}-cgroups-node1` && p.status.phase === 'Running'));
const cg = (subsystem: string, name: string, file: string) => fs.readFileSync(path.join(SYS, subsystem, ROOT, name, file), 'utf8').trim();

/** Every process in a cgroup tree. */
function processesUnder(dir: string): number[] {
  if (!fs.existsSync(dir)) return [];
  const out = fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) out.push(...processesUnder(path.join(dir, e.name)));
  return out;
}

/** The pid of the pod's container, from its own cgroup, which the runtime makes inside the pod cgroup. */
function containerPid(podDir: string, pod: PodJson): number {
  const id = pod.status.containerStatuses![0].containerID!.replace('containerd://', '');
  const [pid] = processesUnder(path.join(SYS, 'memory', ROOT, podDir, id));
  expect(pid).toBeGreaterThan(0);
  return pid;
}

describe('with --cgroups-per-qos (the default)', () => {
  beforeAll(async () => {
    ro = await freePort();
    proc = await startClet([
      ...common('main'), `--port=${await freePort()}`, `--read-only-port=${ro}`, `--pod-manifest-path=${manifests}`, '--file-check-frequency=1s',
      `--cgroup-root=${ROOT}`, '--pod-max-pids=100', '--oom-score-adj=500', `--pod-cidr=${POD_CIDR}`,
    ]);
    if (proc.child.exitCode !== null) throw new Error(`clet exited ${proc.child.exitCode}: ${proc.stderr()}`);
  });

  test('the QoS tree exists under --cgroup-root with node allocatable on kubepods', () => {
    for (const s of SUBSYSTEMS) for (const d of ['kubepods', 'kubepods/burstable', 'kubepods/besteffort']) expect(fs.existsSync(path.join(SYS, s, ROOT, d))).toBe(true);
    expect(cg('cpu', 'kubepods', 'cpu.shares')).toBe(String(os.cpus().length * 1024));
    // The kernel keeps limits in whole pages.
    expect(Number(cg('memory', 'kubepods', 'memory.limit_in_bytes'))).toBe(Math.floor(os.totalmem() / 4096) * 4096);
    expect(cg('cpu', 'kubepods/besteffort', 'cpu.shares')).toBe('2');
  });

  test('a Guaranteed pod: its cgroup under kubepods has the CPU quota, memory limit and pids limit; the container is inside', async () => {
    writePod('guaranteed', { limits: { cpu: '250m', memory: '64Mi' } });
    const pod = await running('guaranteed');
    const dir = `kubepods/pod${pod.metadata.uid}`;
    expect(cg('cpu', dir, 'cpu.cfs_quota_us')).toBe('25000');
    expect(cg('cpu', dir, 'cpu.cfs_period_us')).toBe('100000');
    expect(cg('cpu', dir, 'cpu.shares')).toBe('256');
    expect(cg('memory', dir, 'memory.limit_in_bytes')).toBe(String(64 * 1024 * 1024));
    expect(cg('pids', dir, 'pids.max')).toBe('100');
    const pid = containerPid(dir, pod);
    expect(fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8')).toMatch(new RegExp(`:memory:${ROOT}/${dir}/`));
    // The container's own limits from CRI: its cgroup (inside the pod's) has the same quota.
    const container = pod.status.containerStatuses![0].containerID!.replace('containerd://', '');
    expect(cg('cpu', `${dir}/${container}`, 'cpu.cfs_quota_us')).toBe('25000');
    expect(cg('memory', `${dir}/${container}`, 'memory.limit_in_bytes')).toBe(String(64 * 1024 * 1024));
  });

  test('a BestEffort pod sits under kubepods/besteffort, with the BestEffort OOM score', async () => {
    writePod('besteffort', {});
    const pod = await running('besteffort');
    const dir = `kubepods/besteffort/pod${pod.metadata.uid}`;
    expect(cg('cpu', dir, 'cpu.shares')).toBe('2');
    expect(cg('pids', dir, 'pids.max')).toBe('100');
    const pid = containerPid(dir, pod);
    expect(fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8')).toMatch(new RegExp(`:cpu:${ROOT}/${dir}/`));
    expect(fs.readFileSync(`/proc/${pid}/oom_score_adj`, 'utf8').trim()).toBe('1000');
  });

  test('a Burstable pod: under kubepods/burstable, whose shares follow its cpu request; removed with the pod', async () => {
    writePod('burstable', { requests: { cpu: '300m' } });
    const pod = await running('burstable');
    const dir = `kubepods/burstable/pod${pod.metadata.uid}`;
    expect(cg('cpu', dir, 'cpu.shares')).toBe('307');
    expect(cg('cpu', 'kubepods/burstable', 'cpu.shares')).toBe('307');
    const pid = containerPid(dir, pod);
    // No memory request: 1000 - 0, kept one below BestEffort's 1000.
    expect(fs.readFileSync(`/proc/${pid}/oom_score_adj`, 'utf8').trim()).toBe('999');

    fs.rmSync(path.join(manifests, 'burstable.json'));
    await waitFor('the burstable pod cgroup removed in every hierarchy', () =>
      fs.readdirSync(SYS).every((h) => !fs.existsSync(path.join(SYS, h, ROOT, dir))));
    expect(cg('cpu', 'kubepods/burstable', 'cpu.shares')).toBe('2');
  });

  test('--oom-score-adj is the agent\'s own OOM score; --pod-cidr reaches the runtime', () => {
    expect(fs.readFileSync(`/proc/${proc!.child.pid}/oom_score_adj`, 'utf8').trim()).toBe('500');
    expect(proc!.stderr()).toContain(`"Updating Pod CIDR" originalPodCIDR="" newPodCIDR="${POD_CIDR}"`);
    expect(proc!.stderr()).not.toContain('Pod CIDR update failed');
  });

  test('every pod cgroup goes with its pod', async () => {
    const uids = (await podList()).map((p) => p.metadata.uid);
    expect(uids.length).toBe(2);
    for (const f of fs.readdirSync(manifests)) fs.rmSync(path.join(manifests, f));
    await waitFor('no pod cgroups left', () => SUBSYSTEMS.every((s) =>
      !fs.readdirSync(path.join(SYS, s, ROOT, 'kubepods')).some((d) => d.startsWith('pod'))
      && !fs.readdirSync(path.join(SYS, s, ROOT, 'kubepods/besteffort')).some((d) => d.startsWith('pod'))));
    expect(await proc!.stop()).toBe(0);
    proc = undefined;
  });
});

test('--pods-per-core admits podsPerCore x cores pods and refuses the next', async () => {
  await proc?.stop();
  ro = await freePort();
  const cores = os.cpus().length;
  for (let i = 0; i <= cores; i++) writePod(`per-core-${i}`, {});
  proc = await startClet([
    ...common('per-core'), `--port=${await freePort()}`, `--read-only-port=${ro}`, `--pod-manifest-path=${manifests}`, '--file-check-frequency=1s',
    `--cgroup-root=${ROOT}`, '--pods-per-core=1',
  ]);
  const pods = await waitFor('every pod decided', async () => {
    const list = await podList();
    return list.length === cores + 1 && list.every((p) => p.status.phase === 'Running' || p.status.phase === 'Failed') && list;
  });
  const refused = pods.filter((p) => p.status.phase === 'Failed');
  expect(refused).toEqual([expect.objectContaining({ status: expect.objectContaining({ reason: 'OutOfpods' }) })]);
  for (const f of fs.readdirSync(manifests)) fs.rmSync(path.join(manifests, f));
  await waitFor('no pod cgroups left', () => !fs.readdirSync(path.join(SYS, 'memory', ROOT, 'kubepods/besteffort')).some((d) => d.startsWith('pod')));
  expect(await proc.stop()).toBe(0);
  proc = undefined;
});

test.each([
  ['a static CPU manager', ['--cpu-manager-policy=static'], 'cpu manager policy \\"static\\" is not supported by this agent'],
  ['the systemd cgroup driver without systemd', ['--cgroup-driver=systemd'], 'cgroup driver \\"systemd\\" needs a running systemd, and none runs on this host'],
  ['an unknown CPU manager policy', ['--cpu-manager-policy=fancy'], 'failed to initialize cpu manager: unknown policy: \\"fancy\\"'],
  ['a --cgroup-root that does not exist', [`--cgroup-root=${ROOT}-absent`], `invalid configuration: cgroup-root \\"${ROOT}-absent\\" doesn't exist`],
])('refused at start: %s', async (_name, extra, message) => {
  const r = await runClet([...common('refused'), `--port=${await freePort()}`, '--read-only-port=0', ...extra]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(message);
  expect(r.stderr).not.toContain('Started clet');
});
