// The node lifecycle, taint eviction, pod GC and root CA controllers against the real API server, run in this
// process on one SharedInformers with short periods. The test plays the node agents: it registers Nodes, posts
// their Ready condition and renews their leases in kube-node-lease, then stops, as an agent that died would.
// Everything is checked through the API, as a user (or kubectl) would see it.
import { metaTime, microTime } from '@cl/apimachinery';
import { isNotFound, SharedInformers, type KubeClient } from '@cl/kube-client';
import { NodeLifecycleController, PodGCController, RootCACertPublisher, TaintEvictionController, type Controller, type ControllerContext, type Taint, type Toleration } from '../src';
import { clientFor, eventually, startApiserverProcess, type ApiserverProcess } from './server';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}
interface Node {
  metadata: { name: string; uid: string };
  spec?: { taints?: Taint[] };
  status?: { conditions?: Condition[] };
}
interface Pod {
  metadata: { name: string; namespace: string; uid: string; creationTimestamp: string; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status?: { phase?: string; conditions?: Condition[] };
}
interface CoreEvent {
  type: string;
  reason: string;
  message: string;
  source: { component?: string };
  firstTimestamp: string;
}
interface ConfigMap {
  metadata: { name: string; uid: string; resourceVersion: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
}

const NODES = '/api/v1/nodes';
const PODS = '/api/v1/namespaces/default/pods';
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases';
const GRACE_MS = 3_000;

let api: ApiserverProcess;
let client: KubeClient;
let informers: SharedInformers;
let controllers: Controller[] = [];
const log: string[] = [];
/** The last state of each pod the watch saw deleted: what pod GC wrote just before deleting it. */
const lastSeenDeleted = new Map<string, Pod>();

/** What a node agent does: registers its Node, posts Ready, and renews its lease until it stops. */
class FakeAgent {
  private timer: NodeJS.Timeout | undefined;
  constructor(readonly name: string) {}

  async register(): Promise<Node> {
    const created = await client.create<Node>(NODES, { metadata: { name: this.name } });
    await this.postReady();
    await client.create(LEASES, { metadata: { name: this.name }, spec: { holderIdentity: this.name, leaseDurationSeconds: 40, renewTime: microTime() } });
    this.startRenewing();
    return created;
  }

  async postReady(): Promise<void> {
    const now = metaTime();
    const ready = { type: 'Ready', status: 'True', reason: 'CletReady', message: 'clet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now };
    await client.patch(`${NODES}/${this.name}/status`, { status: { conditions: [ready] } }, 'merge');
  }

  startRenewing(): void {
    this.timer = setInterval(() => {
      client.patch(`${LEASES}/${this.name}`, { spec: { renewTime: microTime() } }, 'merge').catch(() => undefined);
    }, 500);
  }

  stopRenewing(): void {
    clearInterval(this.timer);
  }
}

const steady = new FakeAgent('steady');
const flaky = new FakeAgent('flaky');

const getNode = (name: string) => client.get<Node>(`${NODES}/${name}`);
const condition = (o: { status?: { conditions?: Condition[] } }, type: string) => o.status?.conditions?.find((c) => c.type === type);
const taintKeys = (n: Node) => (n.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();
const getPod = (name: string) => client.get<Pod>(`${PODS}/${name}`);
const gone = async (name: string) => getPod(name).then(() => false, (e: unknown) => isNotFound(e));

async function createPod(name: string, spec: { nodeName?: string; tolerations?: Toleration[]; terminationGracePeriodSeconds?: number } = {}): Promise<Pod> {
  const body = { metadata: { name }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }], ...spec } };
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

const setPodStatus = (name: string, status: Record<string, unknown>) => client.patch(`${PODS}/${name}/status`, { status }, 'strategic');

async function eventsAbout(name: string, reason: string): Promise<CoreEvent[]> {
  const { items } = await client.list<CoreEvent>('/api/v1/namespaces/default/events', { fieldSelector: `involvedObject.name=${name}` });
  return items.filter((e) => e.reason === reason);
}

beforeAll(async () => {
  // No scheduler: the test binds pods itself. No DefaultTolerationSeconds: a pod can then tolerate nothing.
  // The controllers under test run here, in the test process; the server runs only the service account controller
  // (pods are refused until their namespace's `default` service account exists).
  api = await startApiserverProcess(['--enable-scheduler=false', '--controllers=serviceaccount', '--disable-admission-plugins=DefaultTolerationSeconds']);
  client = clientFor(api);
  informers = new SharedInformers(client);
  informers.informer<Pod>('/api/v1/pods').on('delete', (p) => lastSeenDeleted.set(p.metadata.name, p));
  const ctx: ControllerContext = { client, informers, log: (msg, fields) => log.push(`${msg} ${JSON.stringify(fields ?? {})}`) };
  controllers = [
    new NodeLifecycleController(ctx, { nodeMonitorGracePeriodMs: GRACE_MS, nodeStartupGracePeriodMs: GRACE_MS, nodeMonitorPeriodMs: 500, nodeEvictionRate: 10 }),
    new TaintEvictionController(ctx),
    new PodGCController(ctx, { terminatedPodThreshold: 2, gcCheckPeriodMs: 500, quarantineMs: 500 }),
    new RootCACertPublisher(ctx, { rootCA: api.servingCA() }),
  ];
  await informers.start();
  for (const c of controllers) await c.start();
});

afterAll(async () => {
  // The controllers' own log, for a failure that needs it.
  if (process.env.CONTROLLERS_TEST_LOG) process.stdout.write(log.join('\n') + '\n');
  steady.stopRenewing();
  flaky.stopRenewing();
  for (const c of [...controllers].reverse()) await c.stop();
  informers?.stop();
  client?.close();
  await api?.cleanup();
});

describe('node lifecycle and taint eviction', () => {
  it('keeps a node whose lease is renewed Ready, and takes off the not-ready taint it was created with', async () => {
    for (const agent of [steady, flaky]) {
      const created = await agent.register();
      // TaintNodesByCondition's taint, which this controller owns from here on.
      expect(taintKeys(created)).toEqual(['node.kubernetes.io/not-ready:NoSchedule']);
    }
    for (const name of ['steady', 'flaky']) await eventually(async () => taintKeys(await getNode(name)).length === 0, `${name} to lose its not-ready taint`);
    await eventually(async () => (await eventsAbout('steady', 'RegisteredNode')).length > 0, 'the RegisteredNode event');
    // Its Ready heartbeat is now older than the grace period; the renewed lease alone keeps it Ready.
    await new Promise((r) => setTimeout(r, 2 * GRACE_MS));
    const node = await getNode('steady');
    expect(condition(node, 'Ready')).toMatchObject({ status: 'True', reason: 'CletReady' });
    expect(taintKeys(node)).toEqual([]);
    const [registered] = await eventsAbout('steady', 'RegisteredNode');
    expect(registered).toMatchObject({ type: 'Normal', message: 'Node steady event: Registered Node steady in Controller', source: { component: 'node-controller' } });
  });

  it('marks a silent node Unknown and unreachable, and evicts the pods that do not tolerate it', async () => {
    const unreachable = (seconds?: number): Toleration => ({ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', ...(seconds !== undefined ? { tolerationSeconds: seconds } : {}) });
    await createPod('doomed', { nodeName: 'flaky', terminationGracePeriodSeconds: 0 });
    await createPod('patient', { nodeName: 'flaky', tolerations: [unreachable(2)] });
    await createPod('loyal', { nodeName: 'flaky', tolerations: [unreachable()] });
    await setPodStatus('loyal', { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: metaTime() }] });

    flaky.stopRenewing();
    const silent = await eventually(async () => {
      const n = await getNode('flaky');
      return condition(n, 'Ready')?.status === 'Unknown' && n;
    }, 'flaky to be Unknown');
    expect(condition(silent, 'Ready')).toMatchObject({ reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' });
    // The agent never posted the pressure conditions.
    expect(condition(silent, 'MemoryPressure')).toMatchObject({ status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.' });
    expect(condition(await getNode('steady'), 'Ready')?.status).toBe('True');

    const tainted = await eventually(async () => {
      const n = await getNode('flaky');
      return taintKeys(n).join() === 'node.kubernetes.io/unreachable:NoExecute,node.kubernetes.io/unreachable:NoSchedule' && n;
    }, 'flaky to be tainted unreachable');
    const noExecute = tainted.spec!.taints!.find((t) => t.effect === 'NoExecute')!;
    expect(noExecute.timeAdded).toEqual(expect.stringMatching(/Z$/));

    await eventually(() => gone('doomed'), 'the pod that tolerates nothing to be deleted');
    const patient = await eventually(async () => {
      const p = await getPod('patient');
      return p.metadata.deletionTimestamp ? p : undefined;
    }, 'the pod tolerating it for 2 s to be deleted');
    // Deleted with its own grace period, and marked first as 1.33 does.
    expect(condition(patient, 'DisruptionTarget')).toMatchObject({ status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' });
    const [marked] = await eventually(async () => {
      const events = await eventsAbout('patient', 'TaintManagerEviction');
      return events.length > 0 && events;
    }, 'the TaintManagerEviction event');
    expect(marked).toMatchObject({ type: 'Normal', message: 'Marking for deletion Pod default/patient', source: { component: 'taint-eviction-controller' } });
    expect(Date.parse(marked.firstTimestamp)).toBeGreaterThanOrEqual(Date.parse(noExecute.timeAdded!) + 2_000);

    const loyal = await getPod('loyal');
    expect(loyal.metadata.deletionTimestamp).toBeUndefined();
    expect(condition(loyal, 'Ready')?.status).toBe('False');
    await eventually(async () => (await eventsAbout('loyal', 'NodeNotReady')).length > 0, 'the NodeNotReady event on the pod');
    expect((await eventsAbout('loyal', 'NodeNotReady'))[0]).toMatchObject({ type: 'Warning', message: 'Node is not ready' });
    await eventually(async () => (await eventsAbout('flaky', 'NodeNotReady')).length > 0, 'the NodeNotReady event on the node');
    expect((await eventsAbout('flaky', 'NodeNotReady'))[0]).toMatchObject({ type: 'Normal', message: 'Node flaky status is now: NodeNotReady' });
  });

  it('clears the taints once the node is back', async () => {
    flaky.startRenewing();
    await flaky.postReady();
    await eventually(async () => taintKeys(await getNode('flaky')).length === 0, 'flaky to lose its taints');
    expect(condition(await getNode('flaky'), 'Ready')?.status).toBe('True');
    expect((await getPod('loyal')).metadata.deletionTimestamp).toBeUndefined();
  });
});

describe('pod GC', () => {
  it('force-deletes a pod bound to a node that does not exist, marking it failed first', async () => {
    await createPod('orphan', { nodeName: 'no-such-node' });
    await eventually(() => gone('orphan'), 'the orphan to be deleted');
    const last = await eventually(() => lastSeenDeleted.get('orphan'), 'the watch to show the deletion');
    expect(last.status?.phase).toBe('Failed');
    expect(condition(last, 'DisruptionTarget')).toMatchObject({ status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' });
  });

  it('trims terminated pods beyond the threshold: evicted ones first, then the oldest', async () => {
    const first = await createPod('gc-d');
    // The others must be younger by creationTimestamp, which has whole seconds.
    await eventually(() => Date.now() >= Date.parse(first.metadata.creationTimestamp) + 1_000, 'a second to pass');
    for (const name of ['gc-a', 'gc-b', 'gc-c']) await createPod(name);
    // In whatever order pod GC sees them finish, it ends with the two that come last in its order.
    await setPodStatus('gc-c', { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' });
    await setPodStatus('gc-d', { phase: 'Succeeded' });
    await setPodStatus('gc-a', { phase: 'Succeeded' });
    await setPodStatus('gc-b', { phase: 'Failed' });
    await eventually(async () => (await gone('gc-c')) && (await gone('gc-d')), 'the evicted and the oldest pod to be deleted');
    expect(await gone('gc-a')).toBe(false);
    expect(await gone('gc-b')).toBe(false);
  });
});

describe('kube-root-ca.crt', () => {
  const path = '/api/v1/namespaces/team-a/configmaps/kube-root-ca.crt';
  const published = () => client.get<ConfigMap>(path).catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));

  it('appears in a new namespace', async () => {
    await client.create('/api/v1/namespaces', { metadata: { name: 'team-a' } });
    const cm = await eventually(published, 'kube-root-ca.crt in team-a');
    expect(cm.data).toEqual({ 'ca.crt': api.servingCA() });
    expect(cm.metadata.annotations?.['kubernetes.io/description']).toBe(
      'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.',
    );
    expect(await client.get<ConfigMap>('/api/v1/namespaces/default/configmaps/kube-root-ca.crt')).toMatchObject({ data: { 'ca.crt': api.servingCA() } });
  });

  it('comes back after deletion', async () => {
    const before = (await published())!;
    await client.delete(path);
    const after = await eventually(async () => {
      const cm = await published();
      return cm && cm.metadata.uid !== before.metadata.uid && cm;
    }, 'kube-root-ca.crt to be created again');
    expect(after.data).toEqual({ 'ca.crt': api.servingCA() });
  });

  it('gets its data back after an edit', async () => {
    const cm = (await published())!;
    await client.update(path, { ...cm, data: { 'ca.crt': 'not a CA', extra: 'x' } });
    await eventually(async () => {
      const now = await published();
      return now && now.metadata.resourceVersion !== cm.metadata.resourceVersion && JSON.stringify(now.data) === JSON.stringify({ 'ca.crt': api.servingCA() });
    }, 'the data to be restored');
  });
});
