// End to end: a one-node cluster from the built binaries (the API server with its scheduler and controllers, a
// private containerd, the node agent joined with --clconfig), driven by kubectl 1.33 as a user would. One cluster
// is shared by the cases, in order; the last one stops the agent.
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

jest.setTimeout(300_000);

const NODE = 'cluster-node';
// Short node-lifecycle periods so a stopped agent is noticed in seconds; a high eviction rate so the taint
// goes on at once.
const GRACE_SECONDS = 6;
let api: ApiserverProcess;
let ctd: PrivateContainerd;
let images: { busybox: string; unused: string };
let tmp: string;
let clet: CletProcess | undefined;
let keeper: NodeJS.Timeout | undefined;
const { k, ok, file } = kubectlHelpers(() => api);
// A container that ends at once on SIGTERM (a shell as PID 1 ignores it otherwise, and deletions would wait out
// the grace period).
const SLEEPER = ['sh', '-c', 'trap "exit 0" TERM; sleep 3600 & wait'];

function waitFor<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  return poll(async () => fn(), what, 1500, 200).catch((e: Error) => {
    throw new Error(`${e.message}\nclet:\n${clet?.stderr().slice(-3000)}\napiserver:\n${api.output().slice(-3000)}`);
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kubectl's JSON, read field by field
const json = <T = any>(...args: string[]): T => JSON.parse(ok(...args, '-o', 'json')) as T;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const maybe = (...args: string[]): any => {
  const r = k(...args, '-o', 'json');
  return r.status === 0 ? JSON.parse(r.stdout) : undefined;
};
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const items = (...args: string[]): any[] => json(...args).items;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-cluster-'));
  ctd = await startContainerd();
  images = ensureTestImages(ctd.socket, { unused: true });
  api = await startApiserverProcess([`--node-monitor-grace-period=${GRACE_SECONDS}s`, '--node-monitor-period=500ms', '--node-eviction-rate=100']);
  writeKubeconfig(api);
  clet = await startJoinedAgent({ dir: tmp, kubeconfig: api.kubeconfig, containerRuntimeEndpoint: ctd.endpoint, nodeName: NODE, configLines: ['nodeLeaseDurationSeconds: 4'] });
});

afterAll(async () => {
  if (keeper) clearInterval(keeper);
  await clet?.stop();
  await api?.cleanup();
  await ctd?.stop();
  // This suite's pods only (the deployment's have generated names): other suites may be using theirs.
  const webPods = fs.existsSync('/var/log/pods') ? fs.readdirSync('/var/log/pods').filter((d) => d.startsWith('default_web-')).map((d) => d.split('_')[1]) : [];
  for (const name of ['hello', 'brief', 'steadfast', ...webPods]) removePodLogs('default', name);
  removePodLogs('team', 'worker');
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('the node turns Ready without the not-ready taint, and a pod from kubectl run is scheduled and runs', async () => {
  await waitFor('the node to be Ready and untainted', () => {
    const n = maybe('get', 'node', NODE);
    const ready = n?.status?.conditions?.find((c: { type: string }) => c.type === 'Ready')?.status === 'True';
    // The TaintNodesByCondition admission registers it with not-ready:NoSchedule; node lifecycle takes it off.
    return ready && (n.spec?.taints ?? []).length === 0;
  });
  expect(ok('run', 'hello', `--image=${images.busybox}`, '--', ...SLEEPER)).toBe('pod/hello created\n');
  const pod = await waitFor('hello to run', () => {
    const p = maybe('get', 'pod', 'hello');
    return p?.status?.phase === 'Running' && p;
  });
  expect(pod.spec.nodeName).toBe(NODE);
  expect(ok('get', 'events', '--field-selector', 'involvedObject.name=hello', '-o', 'custom-columns=R:.reason', '--no-headers').split('\n')).toEqual(
    expect.arrayContaining(['Scheduled', 'Pulled', 'Created', 'Started']),
  );
  // The root CA publisher gives every namespace the CA that verifies the API server.
  expect(ok('get', 'configmap', 'kube-root-ca.crt', '-o', 'jsonpath={.data.ca\\.crt}')).toBe(api.servingCA());
});

test('a Deployment of 3 becomes available, scales to 5 and rolls to a new image', async () => {
  expect(ok('create', 'deployment', 'web', `--image=${images.busybox}`, '--replicas=3', '--', ...SLEEPER)).toBe('deployment.apps/web created\n');
  await waitFor('3 available replicas', () => json('get', 'deployment', 'web').status?.availableReplicas === 3);
  expect(ok('rollout', 'status', 'deployment/web')).toContain('deployment "web" successfully rolled out');
  const first = items('get', 'rs', '-l', 'app=web');
  expect(first).toHaveLength(1);
  expect(items('get', 'pods', '-l', 'app=web').every((p) => p.metadata.ownerReferences[0].name === first[0].metadata.name && p.spec.nodeName === NODE)).toBe(true);

  expect(ok('scale', 'deployment', 'web', '--replicas=5')).toBe('deployment.apps/web scaled\n');
  await waitFor('5 available replicas', () => json('get', 'deployment', 'web').status?.availableReplicas === 5);
  expect(items('get', 'pods', '-l', 'app=web').filter((p) => p.status.phase === 'Running')).toHaveLength(5);

  // The container is named after the image (busybox); the second image is the same layer under another name.
  expect(ok('set', 'image', 'deployment/web', `busybox=${images.unused}`)).toBe('deployment.apps/web image updated\n');
  expect(ok('rollout', 'status', 'deployment/web')).toContain('deployment "web" successfully rolled out');
  const d = json('get', 'deployment', 'web');
  expect(d.status).toMatchObject({ replicas: 5, updatedReplicas: 5, availableReplicas: 5, observedGeneration: d.metadata.generation });
  expect(d.status.conditions.find((c: { type: string }) => c.type === 'Progressing').reason).toBe('NewReplicaSetAvailable');
  const sets = items('get', 'rs', '-l', 'app=web');
  expect(sets.map((s) => [s.spec.template.spec.containers[0].image, s.spec.replicas]).sort()).toEqual([[images.busybox, 0], [images.unused, 5]].sort());
  await waitFor('only new pods', () => {
    const pods = items('get', 'pods', '-l', 'app=web');
    return pods.length === 5 && pods.every((p) => p.spec.containers[0].image === images.unused && p.status.phase === 'Running');
  });
  expect(ok('rollout', 'history', 'deployment/web')).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
});

test('deleting a Deployment removes its ReplicaSets and their pods', async () => {
  ok('delete', 'deployment', 'web');
  await waitFor('no ReplicaSets and no pods of web', () => items('get', 'rs', '-l', 'app=web').length === 0 && items('get', 'pods', '-l', 'app=web').length === 0);
  // The containers have stopped on the node too, not just the objects gone (container GC removes them later).
  await waitFor('the containers to stop', () => {
    const ids = ctd.ctr(['containers', 'ls']).split('\n').filter((l) => l.includes(images.unused)).map((l) => l.split(/\s+/)[0]);
    const running = ctd.ctr(['tasks', 'ls']).split('\n').filter((l) => /RUNNING/.test(l)).map((l) => l.split(/\s+/)[0]);
    return !ids.some((id) => running.includes(id)) || undefined;
  });
});

test('deleting a namespace removes its pods (and their containers) and then the namespace', async () => {
  ok('create', 'namespace', 'team');
  ok('run', 'worker', '-n', 'team', `--image=${images.busybox}`, '--', ...SLEEPER);
  await waitFor('worker to run', () => maybe('get', 'pod', 'worker', '-n', 'team')?.status?.phase === 'Running');
  expect(maybe('get', 'configmap', 'kube-root-ca.crt', '-n', 'team')).toBeDefined();
  ok('delete', 'namespace', 'team', '--wait=false');
  await waitFor('the namespace to be gone', () => k('get', 'namespace', 'team').status !== 0);
  expect(k('get', 'pods', '-n', 'team', '-o', 'name').stdout).toBe('');
});

test('a stopped agent makes its node NotReady and unreachable; pods are marked for eviction after their toleration', async () => {
  // A second, healthy node (renewed by the test, tainted so nothing is scheduled onto it): with every node gone
  // silent, node lifecycle would treat the zone as fully disrupted and evict nothing, as upstream does.
  const lease = (renewTime: string) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'keeper', namespace: 'kube-node-lease' }, spec: { holderIdentity: 'keeper', leaseDurationSeconds: 40, renewTime } });
  const now = () => new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
  ok('create', '-f', file('keeper.json', JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'keeper' }, spec: { taints: [{ key: 'keeper', value: 'true', effect: 'NoSchedule' }] } })));
  ok('create', '-f', file('keeper-lease.json', JSON.stringify(lease(now()))));
  const postReady = () => {
    const t = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    k('patch', 'node', 'keeper', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ready', lastHeartbeatTime: t, lastTransitionTime: t }] } }));
    k('patch', 'lease', 'keeper', '-n', 'kube-node-lease', '--type=merge', '-p', JSON.stringify({ spec: { renewTime: now() } }));
  };
  postReady();
  keeper = setInterval(postReady, 1000);

  const pod = (name: string, toleration: Record<string, unknown>) =>
    file(`${name}.json`, JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name },
      spec: { nodeName: NODE, terminationGracePeriodSeconds: 1, tolerations: [toleration], containers: [{ name: 'c', image: images.busybox, command: SLEEPER }] },
    }));
  ok('create', '-f', pod('brief', { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 3 }));
  ok('create', '-f', pod('steadfast', { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }));
  await waitFor('both pods to run', () => ['brief', 'steadfast'].every((n) => maybe('get', 'pod', n)?.status?.phase === 'Running'));

  await clet!.stop();
  clet = undefined;
  const node = await waitFor('the node to be unreachable', () => {
    const n = maybe('get', 'node', NODE);
    return (n?.spec?.taints ?? []).some((t: { key: string; effect: string }) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute') && n;
  });
  expect(node.status.conditions.find((c: { type: string }) => c.type === 'Ready')).toMatchObject({ status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' });
  expect(ok('get', 'node', NODE)).toMatch(new RegExp(`${NODE}\\s+NotReady\\s`));
  const taintedAt = Date.parse(node.spec.taints.find((t: { effect: string }) => t.effect === 'NoExecute').timeAdded);

  // Marked for eviction (a deletion the agent would carry out), not before its toleration has run out.
  const brief = await waitFor('brief to be marked for deletion', () => maybe('get', 'pod', 'brief')?.metadata?.deletionTimestamp && maybe('get', 'pod', 'brief'));
  expect(Date.parse(brief.metadata.deletionTimestamp) - 1000 * brief.metadata.deletionGracePeriodSeconds).toBeGreaterThanOrEqual(taintedAt + 3000 - 1000);
  expect(brief.status.conditions.find((c: { type: string }) => c.type === 'DisruptionTarget')).toMatchObject({ status: 'True', reason: 'DeletionByTaintManager' });
  expect(ok('get', 'events', '--field-selector', 'involvedObject.name=brief,reason=TaintManagerEviction', '-o', 'jsonpath={.items[0].message}')).toBe('Marking for deletion Pod default/brief');
  // Tolerating for ever: it stays, marked not Ready since its node is.
  const steadfast = maybe('get', 'pod', 'steadfast');
  expect(steadfast.metadata.deletionTimestamp).toBeUndefined();
  expect(steadfast.status.conditions.find((c: { type: string }) => c.type === 'Ready').status).toBe('False');
});
