// End to end: node-pressure eviction. The built clet joins the built API server with a private containerd and its
// --root-dir on a 64Mi tmpfs mounted here, with --eviction-hard=nodefs.available<50%. A BestEffort pod bound with
// kubectl fills an emptyDir (on that tmpfs) past the threshold: the eviction manager finds nothing the node itself
// can free, evicts the pod (Failed, reason Evicted, upstream's message, DisruptionTarget, an Evicted event, not
// restarted), the node reports DiskPressure, and a pod bound while the condition holds is refused at admission. First,
// before any pressure, a pod past its emptyDir sizeLimit is evicted (--local-storage-capacity-isolation, default on).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { waitFor as poll } from '@cl/testing';
import { CletProcess, get, removePodLogs, startJoinedAgent } from './clet-harness';
// Test helpers of other suites and tools/ fixtures: specs are never built, so relative imports are safe.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { kubectlHelpers, startApiserverProcess, writeKubeconfig, type ApiserverProcess } from '../../apiserver/test/harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ensureTestImages, PrivateContainerd, startContainerd } from '../../../tools/containerd/harness';

jest.setTimeout(240_000);

const NODE = 'eviction-node';
let api: ApiserverProcess;
let ctd: PrivateContainerd;
let busybox: string;
let tmp: string;
let rootDir: string;
let mounted = false;
let clet: (CletProcess & { port: number }) | undefined;
const { k, ok, file } = kubectlHelpers(() => api);
const podNames = ['hog', 'late', 'limited'];

function waitFor<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false): Promise<T> {
  return poll(async () => fn(), what, 1200, 250).catch((e: Error) => {
    throw new Error(`${e.message}\nclet:\n${clet?.stderr().slice(-4000)}\napiserver:\n${api.output().slice(-1500)}`);
  });
}

const getPod = (name: string) => {
  const r = k('get', 'pod', name, '-o', 'json');
  return r.status === 0 ? JSON.parse(r.stdout) : undefined;
};
const nodeCondition = (type: string) => {
  const r = k('get', 'node', NODE, '-o', 'json');
  if (r.status !== 0) return undefined;
  return JSON.parse(r.stdout).status?.conditions?.find((c: { type: string }) => c.type === type);
};

const podManifest = (name: string, command: string, sizeLimit?: string) => [
  'apiVersion: v1', 'kind: Pod', 'metadata:', `  name: ${name}`, '  namespace: default', 'spec:', `  nodeName: ${NODE}`,
  '  terminationGracePeriodSeconds: 30', '  containers:', `  - name: ${name}`, `    image: ${busybox}`, '    imagePullPolicy: IfNotPresent',
  `    command: ["sh", "-c", ${JSON.stringify(command)}]`, '    volumeMounts:', '    - name: scratch', '      mountPath: /scratch',
  '  volumes:', '  - name: scratch', `    emptyDir: {${sizeLimit ? `sizeLimit: ${sizeLimit}` : ''}}`, '',
].join('\n');

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-evict-'));
  rootDir = path.join(tmp, 'root');
  fs.mkdirSync(rootDir);
  // nodefs: the filesystem of --root-dir, small enough for a pod to fill.
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', rootDir]);
  mounted = true;
  ctd = await startContainerd();
  busybox = ensureTestImages(ctd.socket).busybox;
  api = await startApiserverProcess();
  writeKubeconfig(api);
  clet = await startJoinedAgent({
    dir: tmp, kubeconfig: api.kubeconfig, containerRuntimeEndpoint: ctd.endpoint, nodeName: NODE,
    args: ['--eviction-hard=nodefs.available<50%'],
  });
});

afterAll(async () => {
  await clet?.stop();
  await api?.cleanup();
  await ctd?.stop();
  for (const name of podNames) removePodLogs('default', name);
  if (mounted) execFileSync('umount', [rootDir]);
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('a pod writing past its emptyDir sizeLimit is evicted while the node has room', async () => {
  await waitFor('the node to be Ready', () => nodeCondition('Ready')?.status === 'True');
  ok('apply', '-f', file('limited.yaml', podManifest('limited', 'dd if=/dev/zero of=/scratch/fill bs=1M count=2; exec sleep 3600', '1Mi')));
  const pod = await waitFor('limited to be evicted', () => {
    const p = getPod('limited');
    return p?.status?.phase === 'Failed' ? p : undefined;
  });
  expect(pod.status).toMatchObject({ reason: 'Evicted', message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ' });
  // A limit, not node pressure: no DisruptionTarget (upstream 1.33), and the node has no DiskPressure.
  expect(pod.status.conditions.map((c: { type: string }) => c.type)).not.toContain('DisruptionTarget');
  expect(nodeCondition('DiskPressure')?.status).toBe('False');
});

test('a BestEffort pod filling nodefs past a hard threshold is evicted; the node reports DiskPressure', async () => {
  await waitFor('the node to be Ready without DiskPressure', () =>
    nodeCondition('Ready')?.status === 'True' && nodeCondition('DiskPressure')?.status === 'False');
  // 40Mi of the 64Mi tmpfs: nodefs.available drops below 50% (32Mi); the container then just waits.
  ok('apply', '-f', file('hog.yaml', podManifest('hog', 'dd if=/dev/zero of=/scratch/fill bs=1M count=40; exec sleep 3600')));

  const pod = await waitFor('hog to be evicted', () => {
    const p = getPod('hog');
    return p?.status?.phase === 'Failed' ? p : undefined;
  });
  expect(pod.status.reason).toBe('Evicted');
  // Upstream's text: the threshold (50% of 64Mi) and what was left, then any container over its (zero) request.
  expect(pod.status.message).toMatch(
    /^The node was low on resource: ephemeral-storage\. Threshold quantity: 32Mi, available: \d+(Ki|Mi)?\. (Container hog was using \S+, request is 0, has larger consumption of ephemeral-storage\. )?$/,
  );
  const available = /available: (\d+)(Ki|Mi)?\./.exec(pod.status.message)!;
  expect(Number(available[1]) * (available[2] === 'Mi' ? 1024 * 1024 : available[2] === 'Ki' ? 1024 : 1)).toBeLessThan(32 * 1024 * 1024);
  expect(pod.status.conditions).toEqual(expect.arrayContaining([
    expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet', message: pod.status.message }),
  ]));
  expect(pod.status.containerStatuses[0].state.terminated).toBeDefined();

  const pressure = await waitFor('the node to report DiskPressure', () => {
    const c = nodeCondition('DiskPressure');
    return c?.status === 'True' ? c : undefined;
  });
  expect(pressure.reason).toBe('CletHasDiskPressure');

  // The eviction is an event of the pod, with the same message.
  const events = await waitFor('the Evicted event', () => {
    const list = JSON.parse(ok('get', 'events', '--field-selector', 'involvedObject.name=hog', '-o', 'json')).items as Array<{ reason: string; type: string; message: string }>;
    return list.find((e) => e.reason === 'Evicted');
  });
  expect(events).toMatchObject({ type: 'Warning', message: pod.status.message });
  // And the node's: the manager set out to reclaim.
  const nodeEvents = JSON.parse(ok('get', 'events', '--field-selector', `involvedObject.kind=Node,involvedObject.name=${NODE}`, '-o', 'json')).items as Array<{ reason: string; type: string; message: string }>;
  expect(nodeEvents).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'Warning', reason: 'EvictionThresholdMet', message: 'Attempting to reclaim ephemeral-storage' })]));

  // restartPolicy Always, yet nothing restarted it: still Failed, the same terminated container.
  const after = getPod('hog');
  expect(after.status.phase).toBe('Failed');
  expect(after.status.containerStatuses[0]).toMatchObject({ restartCount: 0, containerID: pod.status.containerStatuses[0].containerID });
  expect(after.status.containerStatuses[0].state.terminated).toBeDefined();

  // The evicted pod's emptyDir was torn down: the space is free again.
  const df = fs.statfsSync(rootDir);
  expect(df.bavail * df.bsize).toBeGreaterThan(32 * 1024 * 1024);

  const metrics = await get(`https://127.0.0.1:${clet!.port}/metrics`);
  expect(metrics.body).toMatch(/^clet_evictions\{eviction_signal="nodefs.available"\} 1$/m);
  expect(metrics.body).toMatch(/^clet_evictions\{eviction_signal="emptydirfs.limit"\} 1$/m);
});

test('while DiskPressure holds (the transition period), a new pod is refused at admission with reason Evicted', async () => {
  expect(nodeCondition('DiskPressure')?.status).toBe('True');
  ok('apply', '-f', file('late.yaml', podManifest('late', 'exec sleep 3600')));
  const pod = await waitFor('late to be refused', () => {
    const p = getPod('late');
    return p?.status?.phase === 'Failed' ? p : undefined;
  });
  expect(pod.status).toMatchObject({ reason: 'Evicted', message: 'The node had condition: [DiskPressure]. ' });
  expect(pod.status.containerStatuses ?? []).toEqual([]);
});

test('an agent restart does not run the evicted pod again', async () => {
  const before = getPod('hog');
  await clet!.stop();
  clet = await startJoinedAgent({
    dir: tmp, kubeconfig: api.kubeconfig, containerRuntimeEndpoint: ctd.endpoint, nodeName: NODE, port: clet!.port,
    args: ['--eviction-hard=nodefs.available<50%'],
  });
  // The new agent's first sync of the pod finds it evicted (its API status) and starts nothing.
  await waitFor('the restarted agent to sync the evicted pod', () => clet!.stderr().includes('"Pod was evicted before, not running it" pod="hog_default"'));
  const after = getPod('hog');
  expect(after.status).toMatchObject({ phase: 'Failed', reason: 'Evicted', message: before.status.message });
  expect(after.status.containerStatuses[0]).toMatchObject({ restartCount: 0, containerID: before.status.containerStatuses[0].containerID });
  expect(after.status.containerStatuses[0].state.terminated).toBeDefined();
});
