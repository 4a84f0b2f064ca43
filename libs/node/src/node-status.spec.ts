import { FakeApi, recordingLog, waitUntil } from '../test/fake-api';
import type { ConditionChange } from './node-conditions';
import { nodeConditions, OWN_CONDITION_TYPES as OWN_TYPES } from './node-conditions';
import { registrationNode } from './node-object';
import { NodeStatusReporter, statusDiffers, statusPatch, type NodeFacts } from './node-status';
import type { Node, NodeCondition, NodeStatus, NodeSystemInfo } from './types';

const facts: NodeFacts = {
  notReady: [],
  memoryPressure: false,
  diskPressure: false,
  pidPressure: false,
  capacity: { cpu: '4', memory: '8Gi', pods: '110' },
  allocatable: { cpu: '4', memory: '7Gi', pods: '110' },
  addresses: [
    { type: 'InternalIP', address: '10.0.0.1' },
    { type: 'Hostname', address: 'host-1' },
  ],
  nodeInfo: {
    machineID: 'm',
    systemUUID: 's',
    bootID: 'b',
    kernelVersion: '6.1.0',
    osImage: 'Debian GNU/Linux 12 (bookworm)',
    containerRuntimeVersion: 'containerd://1.6.20',
    kubeletVersion: 'v1.33.0',
    kubeProxyVersion: '',
    operatingSystem: 'linux',
    architecture: 'amd64',
  },
  images: [{ names: ['registry.k8s.io/pause:3.10'], sizeBytes: 320368 }],
  daemonPort: 10250,
};

const T0 = '2025-01-01T00:00:00Z';
const T1 = '2025-01-01T00:00:10Z';

/** The route controller's condition: on many Nodes, never the agent's. */
const networkUnavailable: NodeCondition = { type: 'NetworkUnavailable', status: 'False', reason: 'RouteCreated', message: 'RouteController created a route', lastHeartbeatTime: T0, lastTransitionTime: T0 };

function statusOf(f: NodeFacts, now: string, previous?: NodeStatus): NodeStatus {
  return {
    capacity: f.capacity,
    allocatable: f.allocatable,
    conditions: nodeConditions(f, previous?.conditions, now).conditions,
    addresses: f.addresses,
    daemonEndpoints: { kubeletEndpoint: { Port: f.daemonPort } },
    nodeInfo: f.nodeInfo,
    images: f.images,
  };
}

describe('statusDiffers', () => {
  const before = statusOf(facts, T0);
  test.each<[string, NodeFacts | ((s: NodeStatus) => NodeStatus), boolean]>([
    ['only the heartbeat moved', facts, false],
    ['capacity in another key order', (s) => ({ ...s, capacity: { pods: '110', memory: '8Gi', cpu: '4' } }), false],
    ['a condition changed', { ...facts, diskPressure: true }, true],
    ['allocatable changed', { ...facts, allocatable: { ...facts.allocatable, memory: '6Gi' } }, true],
    ['an address went away', { ...facts, addresses: [facts.addresses[0]] }, true],
    ['a new image', { ...facts, images: [...facts.images, { names: ['busybox:1.36'], sizeBytes: 4 }] }, true],
    ['a new boot', { ...facts, nodeInfo: { ...facts.nodeInfo, bootID: 'b2' } }, true],
    ['another port', { ...facts, daemonPort: 10251 }, true],
  ])('%s -> %s', (_name, change, differs) => {
    const next = typeof change === 'function' ? change(statusOf(facts, T1, before)) : statusOf(change, T1, before);
    expect(statusDiffers(before, next)).toBe(differs);
  });

  test('a Node without status differs from any status', () => {
    expect(statusDiffers(undefined, statusOf(facts, T0))).toBe(true);
  });
});

describe('statusDiffers: only what the agent sets counts, whatever else the Node holds', () => {
  const next = statusOf(facts, T1, statusOf(facts, T0));
  const ownCondition = (type: string, change: Partial<NodeCondition>) => (s: NodeStatus): NodeStatus => ({ ...s, conditions: s.conditions.map((c) => (c.type === type ? { ...c, ...change } : c)) });
  const { kubeletVersion, ...infoButVersion } = facts.nodeInfo;
  test.each<[string, boolean, (node: NodeStatus) => NodeStatus]>([
    ['a foreign condition (NetworkUnavailable) after the own ones', false, (s) => ({ ...s, conditions: [...s.conditions, networkUnavailable] })],
    ['a foreign condition (NetworkUnavailable) before the own ones', false, (s) => ({ ...s, conditions: [networkUnavailable, ...s.conditions] })],
    ['the own conditions in another order', false, (s) => ({ ...s, conditions: [...s.conditions].reverse() })],
    ['an extended resource an admin added to capacity and allocatable', false, (s) => ({ ...s, capacity: { ...s.capacity, 'example.com/dongle': '4' }, allocatable: { ...s.allocatable, 'example.com/dongle': '4' } })],
    ['nodeInfo in another key order', false, (s) => ({ ...s, nodeInfo: { kubeletVersion, ...infoButVersion } })],
    ['nodeInfo with a field the agent does not set (swap)', false, (s) => ({ ...s, nodeInfo: { ...s.nodeInfo, swap: { capacity: 0 } } as NodeSystemInfo })],
    ['all of these at once', false, (s) => ({ ...s, conditions: [networkUnavailable, ...s.conditions], capacity: { 'example.com/dongle': '4', ...s.capacity }, nodeInfo: { swap: {}, ...s.nodeInfo } as NodeSystemInfo })],
    ['an own condition with another status', true, ownCondition('Ready', { status: 'False' })],
    ['an own condition with another reason', true, ownCondition('Ready', { reason: 'KubeletReady' })],
    ['an own condition with another message', true, ownCondition('MemoryPressure', { message: 'kubelet has sufficient memory available' })],
    ['an own condition with another lastTransitionTime', true, ownCondition('DiskPressure', { lastTransitionTime: T1 })],
    ['an own condition missing', true, (s) => ({ ...s, conditions: s.conditions.filter((c) => c.type !== 'PIDPressure') })],
    ['an own condition missing, a foreign one there', true, (s) => ({ ...s, conditions: [...s.conditions.filter((c) => c.type !== 'Ready'), networkUnavailable] })],
    ['another value of a capacity the agent sets', true, (s) => ({ ...s, capacity: { ...s.capacity, cpu: '2' } })],
    ['a capacity the agent sets missing', true, (s) => ({ ...s, capacity: { cpu: '4', memory: '8Gi' } })],
    ['another value of an allocatable the agent sets, an extended resource there', true, (s) => ({ ...s, allocatable: { ...s.allocatable, pods: '100', 'example.com/dongle': '4' } })],
    ['another value of a nodeInfo field the agent sets', true, (s) => ({ ...s, nodeInfo: { ...s.nodeInfo, kubeletVersion: 'v1.32.0' } })],
    ['other addresses', true, (s) => ({ ...s, addresses: [{ type: 'InternalIP', address: '10.0.0.2' }, { type: 'Hostname', address: 'host-1' }] })],
    ['other images', true, (s) => ({ ...s, images: [] })],
    ['other daemonEndpoints', true, (s) => ({ ...s, daemonEndpoints: { kubeletEndpoint: { Port: 10251 } } })],
  ])('the Node has %s -> differs: %s', (_name, differs, node) => {
    // The Node as the API server holds it after our last report at T0, then changed as the row says.
    expect(statusDiffers(node(statusOf(facts, T0)), next)).toBe(differs);
  });

  test('no images, a list the API server leaves out when empty, is no difference', () => {
    const none = { ...facts, images: [] };
    const { images, ...node } = statusOf(none, T0);
    expect(images).toEqual([]);
    expect(statusDiffers(node, statusOf(none, T1, statusOf(none, T0)))).toBe(false);
  });
});

describe('statusPatch', () => {
  const before = statusOf(facts, T0);

  test('unchanged addresses are left out; the rest of the status is sent', () => {
    const next = statusOf(facts, T1, before);
    expect(statusPatch(before, next)).toEqual({
      status: { capacity: next.capacity, allocatable: next.allocatable, conditions: next.conditions, daemonEndpoints: next.daemonEndpoints, nodeInfo: next.nodeInfo, images: next.images },
    });
  });

  test.each<[string, Partial<NodeStatus> | undefined]>([
    ['changed', { ...before, addresses: [{ type: 'InternalIP', address: '10.0.0.2' }] }],
    ['absent on the Node', { ...before, addresses: undefined }],
    ['not there at all', undefined],
  ])('addresses %s are replaced whole', (_name, current) => {
    const next = statusOf(facts, T1, before);
    expect(statusPatch(current, next).status).toMatchObject({ addresses: [{ $patch: 'replace' }, ...facts.addresses] });
  });
});

describe('NodeStatusReporter', () => {
  const NODE = '/api/v1/nodes/n1';
  let api: FakeApi;
  let reporter: NodeStatusReporter | undefined;
  let clock: number;
  const now = () => new Date((clock += 1000));

  beforeEach(() => {
    api = new FakeApi();
    clock = Date.parse(T0);
  });
  afterEach(async () => {
    await reporter?.stop();
    reporter = undefined;
  });

  function start(o: { facts?: () => Promise<NodeFacts>; reportFrequencyMs?: number; register?: boolean; node?: Node; now?: () => Date } = {}) {
    const changes: ConditionChange[] = [];
    const registered: Node[] = [];
    const reads: Node[] = [];
    const log = recordingLog();
    reporter = new NodeStatusReporter({
      client: api,
      node: o.node ?? registrationNode({ nodeName: 'n1', hostname: 'host-1' }),
      facts: o.facts ?? (async () => facts),
      register: o.register ?? true,
      updateFrequencyMs: 20,
      reportFrequencyMs: o.reportFrequencyMs ?? 3_600_000,
      log,
      onConditionChange: (_node, c) => changes.push(c),
      onRegistered: (node) => registered.push(node),
      onRead: (node) => reads.push(node),
      now: o.now ?? now,
    });
    reporter.start();
    return { changes, registered, reads, log };
  }

  const nodeGets = () => api.callsOf('GET', NODE).length;

  test('registers with a POST carrying the full status, and tells who waits for the Node', async () => {
    const { changes, registered } = start();
    await waitUntil(() => registered.length === 1, 'the registration', api);
    const [post] = api.calls;
    expect(post).toMatchObject({ method: 'POST', path: '/api/v1/nodes', code: 201 });
    const body = post.body as Node;
    expect(body.metadata).toMatchObject({ name: 'n1', labels: { 'kubernetes.io/hostname': 'host-1' } });
    expect(body.status).toMatchObject({ capacity: facts.capacity, allocatable: facts.allocatable, addresses: facts.addresses, daemonEndpoints: { kubeletEndpoint: { Port: 10250 } }, nodeInfo: facts.nodeInfo, images: facts.images });
    expect(body.status!.conditions!.map((c) => `${c.type}=${c.status}`)).toEqual(['MemoryPressure=False', 'DiskPressure=False', 'PIDPressure=False', 'Ready=True']);
    // The Node the API server created (with its uid), for the lease's and mirror pods' owner references.
    expect(registered[0].metadata.uid).toBe(api.object<Node>(NODE)!.metadata.uid);
    expect(changes.map((c) => c.event)).toEqual(['NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID', 'NodeReady']);
  });

  test('retries registration after failures', async () => {
    api.failNext(2, 0);
    const { registered, log } = start();
    await waitUntil(() => registered.length === 1, 'the registration', api);
    expect(api.callsOf('POST').map((c) => c.code)).toEqual([0, 0, 201]);
    expect(log.lines.filter((l) => l.msg === 'Unable to register node with API server')).toHaveLength(2);
  });

  const existingNode = (labels: Record<string, string>) =>
    api.put<Node>(NODE, { ...registrationNode({ nodeName: 'n1', hostname: 'host-1' }), metadata: { name: 'n1', labels, annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' } }, status: statusOf(facts, T0) });

  test('on 409 it reads the Node and PATCHes only the default labels that differ', async () => {
    existingNode({ 'kubernetes.io/hostname': 'old-host', 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'beta.kubernetes.io/arch': 'amd64', team: 'a' });
    const { registered } = start({ node: registrationNode({ nodeName: 'n1', hostname: 'host-1', nodeLabels: { 'kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/arch': 'amd64' } }) });
    await waitUntil(() => registered.length === 1, 'the registration', api);
    expect(api.calls.slice(0, 3).map((c) => `${c.method} ${c.path} ${c.code}`)).toEqual(['POST /api/v1/nodes 409', `GET ${NODE} 200`, `PATCH ${NODE}/status 200`]);
    expect(api.calls[2].body).toEqual({ metadata: { labels: { 'kubernetes.io/hostname': 'host-1' }, annotations: {} } });
    expect(api.object<Node>(NODE)!.metadata.labels).toMatchObject({ 'kubernetes.io/hostname': 'host-1', team: 'a' });
    expect(registered[0].metadata.labels!['kubernetes.io/hostname']).toBe('host-1');
  });

  test('on 409 with the default labels in step it writes nothing to register', async () => {
    existingNode({ 'kubernetes.io/hostname': 'host-1', 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'beta.kubernetes.io/arch': 'amd64' });
    const { registered } = start({ node: registrationNode({ nodeName: 'n1', hostname: 'host-1', nodeLabels: { 'kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/arch': 'amd64' } }) });
    await waitUntil(() => registered.length === 1, 'the registration', api);
    expect(api.calls.slice(0, 2).map((c) => `${c.method} ${c.path} ${c.code}`)).toEqual(['POST /api/v1/nodes 409', `GET ${NODE} 200`]);
    expect(registered[0].metadata.uid).toBe(api.object<Node>(NODE)!.metadata.uid);
    // What comes next is the first status update (a GET), whose report, the first of this process, carries
    // status only.
    await waitUntil(() => api.callsOf('PATCH').length >= 1, 'the first status report', api);
    expect(api.calls[2]).toMatchObject({ method: 'GET', path: NODE });
    expect(Object.keys(api.callsOf('PATCH')[0].body as object)).toEqual(['status']);
  });

  test('when only the heartbeat would change, no PATCH before reportFrequency has passed', async () => {
    const { registered } = start();
    await waitUntil(() => registered.length === 1 && nodeGets() >= 5, 'five status updates', api);
    expect(api.calls.map((c) => c.method)).toEqual(['POST', ...api.calls.slice(1).map(() => 'GET')]);
    // The Node it created is the one every update reads: it is not announced again.
    expect(registered).toHaveLength(1);
  });

  test('each status update hands on the Node it read, with what others changed on it (the TTL annotation)', async () => {
    const { registered, reads } = start();
    await waitUntil(() => registered.length === 1 && reads.length >= 1, 'a status update', api);
    const node = api.object<Node>(NODE)!;
    api.put<Node>(NODE, { ...node, metadata: { ...node.metadata, annotations: { 'node.alpha.kubernetes.io/ttl': '15' } } });
    await waitUntil(() => reads.at(-1)?.metadata.annotations?.['node.alpha.kubernetes.io/ttl'] === '15', 'a read of the annotated Node', api);
    expect(reads.at(-1)!.metadata.uid).toBe(registered[0].metadata.uid);
  });

  test('once reportFrequency has passed the heartbeat is PATCHed, transition times kept', async () => {
    start({ reportFrequencyMs: 1 });
    await waitUntil(() => api.callsOf('PATCH').length >= 2, 'two status reports', api);
    const created = api.callsOf('POST')[0].body as Node;
    const reported = (api.callsOf('PATCH')[1].body as { status: NodeStatus }).status;
    const heartbeat = reported.conditions[0].lastHeartbeatTime;
    expect(heartbeat > created.status!.conditions![0].lastHeartbeatTime).toBe(true);
    expect(reported.conditions.map((c) => [c.lastHeartbeatTime, c.lastTransitionTime])).toEqual(created.status!.conditions!.map((c) => [heartbeat, c.lastTransitionTime]));
    // The addresses did not change, so the patch leaves them to the Node as it is.
    expect(reported.addresses).toBeUndefined();
  });

  test('a change in health is PATCHed at once and reported as a condition change', async () => {
    let current = facts;
    const { changes, registered } = start({ facts: async () => current });
    await waitUntil(() => registered.length === 1 && nodeGets() >= 1, 'the first status update', api);
    changes.length = 0;
    current = { ...facts, notReady: ['container runtime is down'] };
    await waitUntil(() => api.callsOf('PATCH').length === 1 && changes.length === 1, 'the not-ready report', api);
    expect(changes).toEqual([{ type: 'Ready', event: 'NodeNotReady' }]);
    const ready = api.object<Node>(NODE)!.status!.conditions!.find((c) => c.type === 'Ready')!;
    expect(ready).toMatchObject({ status: 'False', reason: 'CletNotReady', message: 'container runtime is down' });
    expect(ready.lastTransitionTime).toBe(ready.lastHeartbeatTime);
  });

  test('a changed address list replaces the one on the Node', async () => {
    let current = facts;
    const { registered } = start({ facts: async () => current });
    await waitUntil(() => registered.length === 1, 'the registration', api);
    current = { ...facts, addresses: [{ type: 'InternalIP', address: '10.0.0.9' }] };
    await waitUntil(() => api.callsOf('PATCH')[0]?.code === 200, 'the address report', api);
    expect(api.object<Node>(NODE)!.status!.addresses).toEqual([{ type: 'InternalIP', address: '10.0.0.9' }]);
  });

  test('a failed status update is retried with a fresh read', async () => {
    let current = facts;
    const { registered, log } = start({ facts: async () => current });
    await waitUntil(() => registered.length === 1, 'the registration', api);
    api.failNext(1, 500, (c) => c.method === 'PATCH');
    current = { ...facts, memoryPressure: true };
    await waitUntil(() => api.callsOf('PATCH').some((c) => c.code === 200), 'a status report that went through', api);
    const patches = api.callsOf('PATCH');
    expect(patches.map((c) => c.code)).toEqual([500, 200]);
    // Each try reads the Node again.
    const between = api.calls.slice(api.calls.indexOf(patches[0]) + 1, api.calls.indexOf(patches[1]));
    expect(between.map((c) => `${c.method} ${c.path}`)).toEqual([`GET ${NODE}`]);
    expect(log.lines.filter((l) => l.severity === 'E')).toEqual([]);
  });

  test('registers again when the Node was deleted', async () => {
    const { registered } = start();
    await waitUntil(() => registered.length === 1, 'the registration', api);
    api.remove(NODE);
    await waitUntil(() => registered.length === 2, 'the second registration', api);
    const posts = api.callsOf('POST', '/api/v1/nodes');
    expect(posts.map((c) => c.code)).toEqual([201, 201]);
    expect(api.calls[api.calls.indexOf(posts[1]) - 1]).toMatchObject({ method: 'GET', path: NODE, code: 404 });
    expect(registered[1].metadata.uid).not.toBe(registered[0].metadata.uid);
  });

  test('with --register-node=false it never creates the Node, and reports status for one someone else made', async () => {
    start({ register: false, reportFrequencyMs: 1 });
    await waitUntil(() => nodeGets() >= 2, 'status updates without a Node', api);
    expect(api.callsOf('POST')).toEqual([]);
    existingNode({ 'kubernetes.io/hostname': 'host-1' });
    await waitUntil(() => api.callsOf('PATCH').length >= 1, 'a status report', api);
    expect(api.callsOf('POST')).toEqual([]);
  });

  // What others write to a Node besides the agent: the route controller's condition, an admin's extended
  // resource, a nodeInfo field a newer API server knows.
  const othersWrite = (s: Partial<NodeStatus>): Partial<NodeStatus> => ({
    ...s,
    conditions: [networkUnavailable, ...(s.conditions ?? [])],
    capacity: { ...s.capacity, 'example.com/dongle': '4' },
    allocatable: { ...s.allocatable, 'example.com/dongle': '4' },
    nodeInfo: { ...s.nodeInfo, swap: { capacity: 0 } } as NodeSystemInfo,
  });
  const inStepLabels = { 'kubernetes.io/hostname': 'host-1', 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'beta.kubernetes.io/arch': 'amd64' };

  test.each<[string, () => Promise<void>, number]>([
    [
      'others wrote to the Node this process registered: no PATCH at all',
      async () => {
        await waitUntil(() => api.callsOf('POST').some((c) => c.code === 201), 'the registration', api);
        const node = api.object<Node>(NODE)!;
        api.put(NODE, { ...node, status: othersWrite(node.status!) });
      },
      0,
    ],
    [
      'a Node found at registration (409) that others wrote to: the first report, then no PATCH',
      async () => {
        const node = existingNode(inStepLabels);
        api.put(NODE, { ...node, status: othersWrite(node.status!) });
      },
      1,
    ],
  ])('only the heartbeat would change when %s before reportFrequency', async (_name, arrange, reports) => {
    const { registered } = start({ node: registrationNode({ nodeName: 'n1', hostname: 'host-1', nodeLabels: { 'kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/arch': 'amd64' } }) });
    await arrange();
    await waitUntil(() => registered.length === 1 && api.callsOf('PATCH').length === reports && api.calls.at(-1)?.method === 'GET', 'the first status update', api);
    const seen = nodeGets();
    await waitUntil(() => nodeGets() >= seen + 5, 'five more status updates', api);
    expect(api.callsOf('PATCH')).toHaveLength(reports);
    // What the others wrote is still there, beside the agent's own.
    const status = api.object<Node>(NODE)!.status!;
    expect(status.conditions!.map((c) => c.type)).toEqual(expect.arrayContaining(['NetworkUnavailable', 'Ready']));
    expect(status.capacity).toMatchObject({ ...facts.capacity, 'example.com/dongle': '4' });
    expect(status.nodeInfo).toMatchObject({ ...facts.nodeInfo, swap: { capacity: 0 } });
  });

  test('reportFrequency is measured on the injected clock: the heartbeat goes out once it has passed, not before', async () => {
    let clockNow = Date.parse(T0);
    const { registered } = start({ reportFrequencyMs: 60_000, now: () => new Date(clockNow) });
    await waitUntil(() => registered.length === 1 && nodeGets() >= 3, 'three status updates', api);
    clockNow += 59_999;
    let seen = nodeGets();
    await waitUntil(() => nodeGets() >= seen + 3, 'three more status updates', api);
    expect(api.callsOf('PATCH')).toEqual([]);
    clockNow += 1;
    await waitUntil(() => api.callsOf('PATCH')[0]?.code === 200, 'the heartbeat report', api);
    const heartbeat = '2025-01-01T00:01:00Z';
    expect((api.callsOf('PATCH')[0].body as { status: NodeStatus }).status.conditions.map((c) => [c.lastHeartbeatTime, c.lastTransitionTime])).toEqual(OWN_TYPES.map(() => [heartbeat, T0]));
    // The next period counts from that report.
    clockNow += 59_999;
    seen = nodeGets();
    await waitUntil(() => nodeGets() >= seen + 3, 'three more status updates', api);
    expect(api.callsOf('PATCH')).toHaveLength(1);
    clockNow += 1;
    await waitUntil(() => api.callsOf('PATCH').length === 2, 'the second heartbeat report', api);
  });

  test('with --register-node=false the Node the first update reads is announced, and a re-created Node again', async () => {
    const { registered } = start({ register: false });
    await waitUntil(() => nodeGets() >= 2, 'status updates without a Node', api);
    expect(registered).toEqual([]);
    const first = existingNode(inStepLabels);
    await waitUntil(() => registered.length === 1, 'the Node someone else created to be announced', api);
    expect(registered[0].metadata).toMatchObject({ name: 'n1', uid: first.metadata.uid });
    // Further updates read the same Node: it is not announced again.
    let seen = nodeGets();
    await waitUntil(() => nodeGets() >= seen + 3, 'three more status updates', api);
    expect(registered).toHaveLength(1);
    api.remove(NODE);
    seen = api.calls.length;
    await waitUntil(() => api.calls.slice(seen).some((c) => c.method === 'GET' && c.code === 404), 'an update that finds no Node', api);
    const second = existingNode(inStepLabels);
    expect(second.metadata.uid).not.toBe(first.metadata.uid);
    await waitUntil(() => registered.length === 2, 'the re-created Node to be announced', api);
    expect(registered.map((n) => n.metadata.uid)).toEqual([first.metadata.uid, second.metadata.uid]);
    seen = nodeGets();
    await waitUntil(() => nodeGets() >= seen + 3, 'three more status updates', api);
    expect(registered).toHaveLength(2);
    expect(api.callsOf('POST')).toEqual([]);
  });

  test('after stop() no request starts', async () => {
    const { registered } = start();
    await waitUntil(() => registered.length === 1 && nodeGets() >= 1, 'a status update', api);
    await reporter!.stop();
    const seen = api.calls.length;
    // Another reporter's worth of loop turns: the stopped one must not have woken up meanwhile.
    const other = new FakeApi();
    const second = new NodeStatusReporter({ client: other, node: registrationNode({ nodeName: 'n2', hostname: 'h2' }), facts: async () => facts, register: true, updateFrequencyMs: 20, reportFrequencyMs: 3_600_000, log: () => undefined });
    second.start();
    await waitUntil(() => other.callsOf('GET').length >= 3, 'the other reporter to run', other);
    await second.stop();
    expect(api.calls.length).toBe(seen);
  });
});
