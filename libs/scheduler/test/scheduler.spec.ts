// The scheduler against the real API server: Nodes made Ready through their status as an agent would, pods
// created through the client, and what a user sees: spec.nodeName, the PodScheduled condition, and the Scheduled
// and FailedScheduling events with upstream's messages.
import { isNotFound, type KubeClient } from '@cl/kube-client';
import { Scheduler, type Node, type Pod, type Taint, type Toleration } from '../src';
import { clientFor, eventually, startApiserverProcess, type ApiserverProcess } from './server';

let api: ApiserverProcess;
let client: KubeClient;
let scheduler: Scheduler;
const log: string[] = [];

const PODS = '/api/v1/namespaces/default/pods';
const NODES = '/api/v1/nodes';

interface CoreEvent {
  type: string;
  reason: string;
  message: string;
  source: { component?: string };
  count: number;
}

interface NodeOptions {
  labels?: Record<string, string>;
  taints?: Taint[];
  cpu?: string;
  /** false: reports Ready=False; undefined: never reports a status at all. */
  ready?: boolean;
}

/**
 * Registers a node as a node agent does: with its status in the create (node lifecycle takes the not-ready taint
 * of a node without conditions off, so a status posted later would leave a moment without any).
 */
async function createNode(name: string, o: NodeOptions = { ready: true }) {
  await client.create(NODES, { metadata: { name, labels: o.labels }, spec: { taints: o.taints }, ...(o.ready === undefined ? {} : { status: nodeStatus(o.ready, o.cpu) }) });
}

/** What a node agent writes: capacity, allocatable and the Ready condition. */
function nodeStatus(ready: boolean, cpu = '4') {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const resources = { cpu, memory: '8Gi', pods: '110' };
  const condition = { type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? 'KubeletReady' : 'KubeletNotReady', message: '', lastHeartbeatTime: now, lastTransitionTime: now };
  return { capacity: resources, allocatable: resources, conditions: [condition] };
}

async function reportStatus(name: string, ready: boolean, cpu = '4') {
  await client.patch(`${NODES}/${name}/status`, { status: nodeStatus(ready, cpu) }, 'merge');
}

interface PodOptions {
  cpu?: string;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  schedulerName?: string;
}

async function createPod(name: string, o: PodOptions = {}): Promise<Pod> {
  const body = {
    metadata: { name },
    spec: {
      containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: o.cpu ? { requests: { cpu: o.cpu } } : undefined }],
      nodeSelector: o.nodeSelector,
      tolerations: o.tolerations,
      schedulerName: o.schedulerName,
    },
  };
  // The namespace's default service account comes from the API server's controller shortly after start.
  return eventually(
    () =>
      client.create<Pod>(PODS, body).catch((e: { code?: number }) => {
        if (e.code === 403) return undefined;
        throw e;
      }),
    `pod ${name} to be created`,
  );
}

const getPod = (name: string) => client.get<Pod>(`${PODS}/${name}`);
const boundTo = (name: string) => eventually(async () => (await getPod(name)).spec?.nodeName, `pod ${name} to be bound`);

async function eventsOf(pod: string, reason: string): Promise<CoreEvent[]> {
  const { items } = await client.list<CoreEvent>('/api/v1/namespaces/default/events', { fieldSelector: `involvedObject.name=${pod}` });
  return items.filter((e) => e.reason === reason);
}

/** Waits for the FailedScheduling event with exactly this message (an earlier attempt may have seen other nodes). */
const failedWith = (pod: string, message: string) =>
  eventually(async () => (await eventsOf(pod, 'FailedScheduling')).find((e) => e.message === message), `FailedScheduling of ${pod}: ${message}`);

beforeAll(async () => {
  // This suite runs its own scheduler: the one the API server runs by default would race it for every pod.
  api = await startApiserverProcess(['--enable-scheduler=false']);
  client = clientFor(api);
  scheduler = new Scheduler({ client, log: (msg, fields) => log.push(`${msg} ${JSON.stringify(fields)}`) });
  await scheduler.start();
});

afterAll(async () => {
  await scheduler?.stop();
  client?.close();
  await api?.cleanup();
});

afterEach(async () => {
  // Bound pods would wait for a node agent to finish a graceful delete; there is none here.
  const pods = await client.list<Pod>(PODS);
  for (const p of pods.items) await client.delete(`${PODS}/${p.metadata.name}`, { gracePeriodSeconds: 0 }).catch((e) => isNotFound(e) || Promise.reject(e));
  const nodes = await client.list<Node>(NODES);
  for (const n of nodes.items) await client.delete(`${NODES}/${n.metadata.name}`);
});

test('a pod is bound to the only Ready node, with a Scheduled event', async () => {
  await createNode('ready');
  await createNode('not-ready', { ready: false });
  // (A node registered without any conditions is no test of readiness: node lifecycle takes the admission's
  // not-ready taint off it, as upstream does, until its startup grace period runs out.)
  await createPod('web');
  expect(await boundTo('web')).toBe('ready');
  const [scheduled] = await eventually(async () => (await eventsOf('web', 'Scheduled')).length > 0 && eventsOf('web', 'Scheduled'), 'the Scheduled event');
  expect(scheduled).toMatchObject({ type: 'Normal', message: 'Successfully assigned default/web to ready', source: { component: 'default-scheduler' } });
  const pod = await getPod('web');
  expect(pod.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status).toBe('True');
});

test('a pod waits while its only node is not Ready, and is bound once it is', async () => {
  await createNode('late', { ready: false });
  await createPod('waiting');
  await failedWith('waiting', '0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.');
  await reportStatus('late', true);
  expect(await boundTo('waiting')).toBe('late');
});

test('a nodeSelector no node matches leaves the pod Pending with upstream\'s message, until a node is labelled', async () => {
  await createNode('a');
  await createNode('b');
  await createPod('picky', { nodeSelector: { disk: 'ssd' } });
  const message = "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.";
  const event = await failedWith('picky', message);
  expect(event).toMatchObject({ type: 'Warning', source: { component: 'default-scheduler' } });
  const pending = await eventually(async () => {
    const p = await getPod('picky');
    return p.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.message === message) && p;
  }, 'the PodScheduled condition');
  expect(pending.spec?.nodeName).toBeUndefined();
  expect(pending.status?.phase).toBe('Pending');
  expect(pending.status?.conditions?.find((c) => c.type === 'PodScheduled')).toMatchObject({ status: 'False', reason: 'Unschedulable', message });

  await client.patch(`${NODES}/b`, { metadata: { labels: { disk: 'ssd' } } }, 'merge');
  expect(await boundTo('picky')).toBe('b');
});

test('resources: a pod that does not fit waits until a bound pod is deleted', async () => {
  await createNode('small', { ready: true, cpu: '1' });
  await createPod('one', { cpu: '400m' });
  expect(await boundTo('one')).toBe('small');
  await createPod('two', { cpu: '400m' });
  expect(await boundTo('two')).toBe('small');
  await createPod('three', { cpu: '400m' });
  await failedWith('three', '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.');
  expect((await getPod('three')).spec?.nodeName).toBeUndefined();

  await client.delete(`${PODS}/one`, { gracePeriodSeconds: 0 });
  expect(await boundTo('three')).toBe('small');
});

test('taints: an untolerated NoSchedule taint keeps a pod off, a toleration lets one on', async () => {
  await createNode('gpu', { ready: true, taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] });
  await createPod('plain');
  await failedWith('plain', '0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.');
  await createPod('tolerant', { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] });
  expect(await boundTo('tolerant')).toBe('gpu');
  expect((await getPod('plain')).spec?.nodeName).toBeUndefined();
});

test('a pod for another scheduler is left alone', async () => {
  await createNode('shared');
  await createPod('theirs', { schedulerName: 'other-scheduler' });
  await createPod('ours');
  expect(await boundTo('ours')).toBe('shared');
  await eventually(async () => (await eventsOf('ours', 'Scheduled')).length > 0, 'the Scheduled event of ours');
  // Taken in order and written by one writer in order: anything done about `theirs` would show by now.
  expect((await getPod('theirs')).spec?.nodeName).toBeUndefined();
  const { items } = await client.list<CoreEvent>('/api/v1/namespaces/default/events', { fieldSelector: 'involvedObject.name=theirs' });
  expect(items).toEqual([]);
});

test('nothing went wrong on the way: no failed bindings, no errors', () => {
  expect(log.filter((l) => l.startsWith('Failed to bind') || l.startsWith('Error'))).toEqual([]);
});
