// End to end: the built clet joins the built API server (--clconfig) with a private containerd. One cluster is
// shared by the cases, in order: the node registers and turns Ready, its lease is renewed, a static pod gets a
// mirror pod, a pod bound with kubectl runs and reports status, deletion stops it, an agent restart restarts no
// container, an API server restart loses no status update, and the events tell the pods' lives.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { waitFor as poll } from '@cl/testing';
import { CletProcess, removePodLogs, startJoinedAgent } from './clet-harness';
// Test helpers of other suites and tools/ fixtures: specs are never built, so relative imports are safe.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { kubectlHelpers, startApiserverProcess, writeKubeconfig, type ApiserverProcess } from '../../apiserver/test/harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ensureTestImages, PrivateContainerd, startContainerd } from '../../../tools/containerd/harness';

jest.setTimeout(180_000);

const NODE = 'join-node';
let api: ApiserverProcess;
let ctd: PrivateContainerd;
let busybox: string;
let tmp: string;
let clet: CletProcess | undefined;
const { k, ok } = kubectlHelpers(() => api);
test('readiness gates: Ready waits for the gate\'s condition, which another client writes through the status subresource', async () => {
  const gate = 'example.com/lb';
  ok('run', 'gated', `--image=${busybox}`, '--image-pull-policy=IfNotPresent',
    `--overrides=${JSON.stringify({ spec: { nodeName: NODE, terminationGracePeriodSeconds: 1, readinessGates: [{ conditionType: gate }] } })}`, '--command', '--', 'sleep', '3600');
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- kubectl's JSON
  const condition = (type: string) => getPod('gated')?.status?.conditions?.find((c: any) => c.type === type);
  await waitFor('gated\'s containers to be ready', () => condition('ContainersReady')?.status === 'True');
  expect(condition('Ready')).toMatchObject({ status: 'False', reason: 'ReadinessGatesNotReady', message: `corresponding condition of pod readiness gate "${gate}" does not exist.` });
  // A controller (here kubectl) sets the gate's condition: the agent syncs the pod and Ready follows.
  ok('patch', 'pod', 'gated', '--subresource=status', '-p', JSON.stringify({ status: { conditions: [{ type: gate, status: 'True' }] } }));
  await waitFor('Ready to follow the gate', () => condition('Ready')?.status === 'True');
  ok('patch', 'pod', 'gated', '--subresource=status', '-p', JSON.stringify({ status: { conditions: [{ type: gate, status: 'False' }] } }));
  await waitFor('Ready to follow the gate back', () => condition('Ready')?.message === `the status of pod readiness gate "${gate}" is not "True", but False`);
  // The agent's own status writes left the gate's condition as the other client wrote it.
  expect(condition(gate)).toMatchObject({ status: 'False' });
  ok('delete', 'pod', 'gated', '--timeout=60s');
});

const podNames = ['web', 'short', 'sched', 'gated', `st-${NODE}`];

/** Polls until `fn` gives a value; a failure shows the end of the agent's and the API server's logs. */
function waitFor<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false): Promise<T> {
  return poll(async () => fn(), what, 600, 200).catch((e: Error) => {
    throw new Error(`${e.message}\nclet:\n${clet?.stderr().slice(-3000)}\napiserver:\n${api.output().slice(-1500)}`);
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kubectl's JSON, read field by field
const json = <T = any>(...args: string[]): T => JSON.parse(ok(...args, '-o', 'json')) as T;
const getPod = (name: string) => {
  const r = k('get', 'pod', name, '-o', 'json');
  return r.status === 0 ? JSON.parse(r.stdout) : undefined;
};

async function startAgent(): Promise<CletProcess> {
  return startJoinedAgent({
    dir: tmp, kubeconfig: api.kubeconfig, containerRuntimeEndpoint: ctd.endpoint, nodeName: NODE,
    configLines: [
      `staticPodPath: ${path.join(tmp, 'manifests')}`,
      'fileCheckFrequency: 1s',
      'nodeStatusReportFrequency: 10s',
      // A short lease renews every second (a quarter of its duration), so a renewal is seen quickly.
      'nodeLeaseDurationSeconds: 4',
    ],
    args: ['--node-labels=node.cl.io/pool=blue', '--register-with-taints=dedicated=e2e:PreferNoSchedule'],
  });
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-join-'));
  fs.mkdirSync(path.join(tmp, 'manifests'));
  ctd = await startContainerd();
  busybox = ensureTestImages(ctd.socket).busybox;
  api = await startApiserverProcess();
  writeKubeconfig(api);
  fs.writeFileSync(path.join(tmp, 'manifests', 'st.yaml'), [
    'apiVersion: v1', 'kind: Pod', 'metadata:', '  name: st', '  namespace: default', 'spec:', '  terminationGracePeriodSeconds: 2', '  containers:',
    '  - name: c', `    image: ${busybox}`, '    imagePullPolicy: IfNotPresent', '    command: ["sh", "-c", "exec sleep 3600"]', '',
  ].join('\n'));
  clet = await startAgent();
});

afterAll(async () => {
  await clet?.stop();
  await api?.cleanup();
  await ctd?.stop();
  for (const name of podNames) removePodLogs('default', name);
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('the node registers with its labels, taints, addresses and node info, turns Ready, and renews its lease', async () => {
  const node = await waitFor('the node to be Ready', () => {
    const r = k('get', 'node', NODE, '-o', 'json');
    if (r.status !== 0) return undefined;
    const n = JSON.parse(r.stdout);
    return n.status?.conditions?.find((c: { type: string; status: string }) => c.type === 'Ready')?.status === 'True' ? n : undefined;
  });
  expect(node.metadata.labels).toMatchObject({ 'cl.io/hostname': NODE, 'cl.io/os': 'linux', 'node.cl.io/pool': 'blue' });
  expect(node.spec.taints).toEqual(expect.arrayContaining([{ key: 'dedicated', value: 'e2e', effect: 'PreferNoSchedule' }]));
  expect(node.status.conditions.map((c: { type: string }) => c.type)).toEqual(['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready']);
  expect(node.status.conditions[3]).toMatchObject({ reason: 'CletReady', message: 'clet is posting ready status' });
  expect(node.status.addresses).toEqual([{ type: 'InternalIP', address: '127.0.0.1' }, { type: 'Hostname', address: NODE }]);
  expect(node.status.capacity).toMatchObject({ pods: '110', cpu: String(os.cpus().length) });
  expect(node.status.nodeInfo.containerRuntimeVersion).toMatch(/^containerd:\/\//);
  expect(node.status.images.some((i: { names: string[] }) => i.names.includes(busybox))).toBe(true);

  const wide = ok('get', 'nodes', '-o', 'wide');
  expect(wide).toMatch(new RegExp(`${NODE}\\s+Ready\\s+<none>\\s+\\S+\\s+v1\\.33\\.\\d+\\s+127\\.0\\.0\\.1\\s+<none>\\s+.+containerd://`));

  const lease = json('get', 'lease', '-n', 'kube-node-lease', NODE);
  expect(lease.spec).toMatchObject({ holderIdentity: NODE, leaseDurationSeconds: 4 });
  // The lease may come first; it is owned by the Node from the first renewal after registration.
  await waitFor('the lease to be owned by the Node', () => {
    const owners = json('get', 'lease', '-n', 'kube-node-lease', NODE).metadata.ownerReferences;
    return owners?.[0]?.uid === node.metadata.uid ? owners : undefined;
  });
  await waitFor('a lease renewal', () => json('get', 'lease', '-n', 'kube-node-lease', NODE).spec.renewTime !== lease.spec.renewTime || undefined);
});

test('a static pod appears as a mirror pod, owned by the Node, with its status; a deleted mirror comes back', async () => {
  const name = `st-${NODE}`;
  const mirror = await waitFor('the mirror pod to run', () => {
    const p = getPod(name);
    return p?.status?.phase === 'Running' && p.status.containerStatuses?.[0]?.ready ? p : undefined;
  });
  expect(mirror.metadata.annotations['kubernetes.io/config.mirror']).toBe(mirror.metadata.annotations['kubernetes.io/config.hash']);
  expect(mirror.metadata.annotations['kubernetes.io/config.source']).toBe('file');
  expect(mirror.metadata.ownerReferences).toEqual([expect.objectContaining({ apiVersion: 'v1', kind: 'Node', name: NODE, controller: true })]);
  expect(mirror.spec.nodeName).toBe(NODE);

  ok('delete', 'pod', name, '--wait=false');
  const again = await waitFor('a new mirror pod', () => {
    const p = getPod(name);
    return p && p.metadata.uid !== mirror.metadata.uid && !p.metadata.deletionTimestamp ? p : undefined;
  });
  // The static pod itself kept running: the same container.
  await waitFor('the new mirror to show the same container', () => getPod(name)?.status?.containerStatuses?.[0]?.containerID === mirror.status.containerStatuses[0].containerID || undefined);
  expect(again.metadata.annotations['kubernetes.io/config.mirror']).toBe(mirror.metadata.annotations['kubernetes.io/config.mirror']);
});

test('a pod bound with kubectl runs and its status reaches the API; the pod list of the agent follows the API', async () => {
  ok('run', 'web', `--image=${busybox}`, '--image-pull-policy=IfNotPresent', `--overrides={"spec":{"nodeName":"${NODE}","terminationGracePeriodSeconds":5}}`,
    '--command', '--', 'sh', '-c', 'trap "exit 0" TERM; sleep 3600 & wait');
  const pod = await waitFor('web to be Ready', () => {
    const p = getPod('web');
    return p?.status?.conditions?.find((c: { type: string; status: string }) => c.type === 'Ready')?.status === 'True' ? p : undefined;
  });
  expect(pod.status).toMatchObject({ phase: 'Running', hostIP: '127.0.0.1', qosClass: 'BestEffort' });
  expect(pod.status.podIP).toMatch(/^10\./);
  expect(pod.status.containerStatuses[0]).toMatchObject({ name: 'web', ready: true, restartCount: 0, started: true });
  expect(pod.status.conditions.map((c: { type: string }) => c.type)).toEqual(expect.arrayContaining(['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled']));
  expect(ok('get', 'pods', '-o', 'wide')).toMatch(new RegExp(`web\\s+1/1\\s+Running\\s+0\\s+\\S+\\s+10\\.\\S+\\s+${NODE}`));
});

test('a pod without a node is scheduled onto the joined node by the API server\'s scheduler and runs', async () => {
  ok('run', 'sched', `--image=${busybox}`, '--image-pull-policy=IfNotPresent', '--overrides={"spec":{"terminationGracePeriodSeconds":1}}', '--command', '--', 'sleep', '3600');
  const pod = await waitFor('sched to run', () => (getPod('sched')?.status?.phase === 'Running' ? getPod('sched') : undefined));
  expect(pod.spec.nodeName).toBe(NODE);
  expect(ok('get', 'events', '--field-selector', 'involvedObject.name=sched')).toMatch(new RegExp(`Scheduled\\s+pod/sched\\s+Successfully assigned default/sched to ${NODE}`));
  ok('delete', 'pod', 'sched', '--timeout=60s');
});

test('restarting the agent restarts no container and rewrites no unchanged status', async () => {
  const before = getPod('web');
  const id = before.status.containerStatuses[0].containerID;
  await clet!.stop();
  clet = await startAgent();
  // The restarted agent reports the pod again: still Running with the same container and no restart.
  await waitFor('the node to be heartbeating again', async () => {
    const lease = json('get', 'lease', '-n', 'kube-node-lease', NODE);
    return Date.now() - Date.parse(lease.spec.renewTime) < 3000 || undefined;
  });
  const after = getPod('web');
  expect(after.status.containerStatuses[0]).toMatchObject({ containerID: id, restartCount: 0, ready: true });
  expect(after.status.conditions.find((c: { type: string }) => c.type === 'Ready').lastTransitionTime)
    .toBe(before.status.conditions.find((c: { type: string }) => c.type === 'Ready').lastTransitionTime);
});

test('a status change while the API server is down reaches it once it is back', async () => {
  ok('run', 'short', `--image=${busybox}`, '--image-pull-policy=IfNotPresent', '--restart=Never', `--overrides={"spec":{"nodeName":"${NODE}"}}`,
    '--command', '--', 'sh', '-c', 'while [ ! -e /tmp/exit ]; do sleep 0.2; done; exit 3');
  const running = await waitFor('short to run', () => (getPod('short')?.status?.phase === 'Running' ? getPod('short') : undefined));
  const id = String(running.status.containerStatuses[0].containerID).replace('containerd://', '');
  await api.kill('SIGTERM');
  ctd.ctr(['tasks', 'exec', '--exec-id', 'exit', id, 'touch', '/tmp/exit']);
  await waitFor('the container to exit', () => /EXITED|STOPPED/i.test(ctd.ctr(['tasks', 'ls']).split('\n').find((l) => l.startsWith(id)) ?? 'STOPPED') || undefined);
  api = await startApiserverProcess([], { dir: api.dir, port: api.port });
  writeKubeconfig(api);
  const done = await waitFor('short to be reported Failed', () => (getPod('short')?.status?.phase === 'Failed' ? getPod('short') : undefined));
  expect(done.status.containerStatuses[0].state.terminated).toMatchObject({ exitCode: 3, reason: 'Error' });
});

test('kubectl delete stops the containers within the grace period and the agent confirms the deletion', async () => {
  const id = String(getPod('web').status.containerStatuses[0].containerID).replace('containerd://', '');
  const r = k('delete', 'pod', 'web', '--timeout=60s');
  expect(r.status).toBe(0);
  expect(getPod('web')).toBeUndefined();
  // Stopped, not just forgotten: containerd has no running task for it any more.
  const task = ctd.ctr(['tasks', 'ls']).split('\n').find((l) => l.startsWith(id));
  expect(task === undefined || /STOPPED/.test(task)).toBe(true);
});

test('kubectl get events shows the pods\' lives and the node\'s', async () => {
  const events = await waitFor('the Killing event of web', () => {
    const list = json<{ items: Array<{ reason: string; involvedObject: { kind: string; name: string }; source: { component: string; host: string } }> }>('get', 'events');
    return list.items.some((e) => e.reason === 'Killing' && e.involvedObject.name === 'web') ? list.items : undefined;
  });
  const of = (name: string) => events.filter((e) => e.involvedObject.name === name).map((e) => e.reason);
  expect(of('web')).toEqual(expect.arrayContaining(['Pulled', 'Created', 'Started', 'Killing']));
  expect(of(NODE)).toEqual(expect.arrayContaining(['Starting', 'NodeHasSufficientMemory', 'NodeReady']));
  expect(events.find((e) => e.involvedObject.name === 'web')!.source).toEqual({ component: 'clet', host: NODE });
  expect(ok('get', 'events', '--field-selector', 'involvedObject.name=web')).toMatch(/Started\s+pod\/web\s+Started container web/);
});
