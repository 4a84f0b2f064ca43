import { FakeApi, recordingLog, waitUntil } from '../test/fake-api';
import { contains, PodStatusManager } from './pod-status-manager';
import type { Pod, PodStatus } from './types';

const POD = '/api/v1/namespaces/default/pods/web';
const T0 = '2025-01-01T00:00:00Z';
const T1 = '2025-01-01T00:01:00Z';
const T2 = '2025-01-01T00:02:00Z';

const running: PodStatus = {
  phase: 'Running',
  conditions: [
    { type: 'Initialized', status: 'True', lastTransitionTime: T1 },
    { type: 'Ready', status: 'True', lastTransitionTime: T1 },
  ],
  containerStatuses: [{ name: 'c', ready: true, restartCount: 0, image: 'nginx:1.27', state: { running: { startedAt: T1 } } }],
};

let api: FakeApi;
let manager: PodStatusManager;

beforeEach(() => {
  api = new FakeApi();
  manager = new PodStatusManager({ client: api, log: recordingLog(), retryMs: 1 });
});
afterEach(() => manager.stop());

function apiPod(status: PodStatus = { phase: 'Pending' }, extra: Partial<Pod['metadata']> = {}): Pod {
  return api.put<Pod>(POD, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', ...extra }, spec: { nodeName: 'n1' }, status });
}

const patches = () => api.callsOf('PATCH', `${POD}/status`);

test('a status the API server lacks is PATCHed with the pod uid', async () => {
  const pod = apiPod();
  manager.setStatus(pod, running);
  await manager.settled();
  expect(patches().map((c) => c.body)).toEqual([{ metadata: { uid: pod.metadata.uid }, status: running }]);
  expect(api.object<Pod>(POD)!.status).toEqual(running);
  expect(manager.writes).toBe(1);
});

test('the same status again makes no call', async () => {
  manager.setStatus(apiPod(), running);
  await manager.settled();
  manager.setStatus(api.object<Pod>(POD)!, structuredClone(running));
  await manager.settled();
  expect(api.calls.map((c) => c.method)).toEqual(['PATCH']);
});

test('a status the API server already has makes no call', async () => {
  manager.setStatus(apiPod(running), structuredClone(running));
  await manager.settled();
  expect(api.calls).toEqual([]);
});

test('conditions whose status holds keep the API server lastTransitionTime; changed ones take ours', async () => {
  const pod = apiPod({
    phase: 'Pending',
    conditions: [
      { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: T0 },
      { type: 'Ready', status: 'False', reason: 'ContainersNotReady', lastProbeTime: null, lastTransitionTime: T0 },
    ],
  });
  manager.setStatus(pod, running);
  await manager.settled();
  const sent = (patches()[0].body as { status: PodStatus }).status;
  expect(sent.conditions!.map((c) => [c.type, c.lastTransitionTime])).toEqual([
    ['Initialized', T0],
    ['Ready', T1],
  ]);
});

describe("an unchanged condition keeps the transition time of the newest copy the manager knows (its own last write)", () => {
  const ready = (at: string): PodStatus => ({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }] });
  test.each<[string, (pod: Pod) => Pod]>([
    ['the copy from before that write', (pod) => pod],
    ['a copy older still', (pod) => ({ ...pod, metadata: { ...pod.metadata, resourceVersion: String(Number(pod.metadata.resourceVersion) - 1) } })],
  ])('setStatus again with %s: no second PATCH', async (_name, copy) => {
    const pod = apiPod();
    manager.setStatus(pod, ready(T1));
    await manager.settled();
    manager.setStatus(copy(pod), ready(T2));
    await manager.settled();
    expect(patches().map((c) => (c.body as { status: PodStatus }).status)).toEqual([ready(T1)]);
    expect(api.object<Pod>(POD)!.status).toEqual(ready(T1));
  });

  // While the first write is in flight the manager's copy is still the old one: transitions count from the
  // status last set (upstream's status manager), so T2 never replaces T1 for an unchanged condition.
  test('setStatus again in the same turn, with the same copy: the transition time stays, one PATCH', async () => {
    const pod = apiPod();
    manager.setStatus(pod, ready(T1));
    manager.setStatus(pod, ready(T2));
    await manager.settled();
    expect(patches().map((c) => (c.body as { status: PodStatus }).status)).toEqual([ready(T1)]);
    expect(api.object<Pod>(POD)!.status).toEqual(ready(T1));
  });

  test('a condition that did change takes the new transition time, against our last write', async () => {
    const pod = apiPod();
    manager.setStatus(pod, ready(T1));
    await manager.settled();
    const notReady: PodStatus = { phase: 'Running', conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady', lastTransitionTime: T2 }] };
    manager.setStatus(pod, notReady);
    await manager.settled();
    expect(patches().map((c) => (c.body as { status: PodStatus }).status)).toEqual([ready(T1), notReady]);
  });
});

test.each([
  ['a network failure', 0],
  ['a server error', 500],
])('a write that failed with %s is retried', async (_name, code) => {
  const log = recordingLog();
  manager = new PodStatusManager({ client: api, log, retryMs: 1 });
  api.failNext(1, code);
  manager.setStatus(apiPod(), running);
  await waitUntil(() => patches().some((c) => c.code === 200), 'the retried write', api);
  expect(patches().map((c) => c.code)).toEqual([code, 200]);
  expect(api.object<Pod>(POD)!.status).toEqual(running);
  expect(log.lines.filter((l) => l.severity === 'E').map((l) => l.msg)).toEqual(['Failed to update status for pod']);
});

test('a retry writes the newest status, not the one that failed', async () => {
  api.failNext(1, 500);
  const pod = apiPod();
  manager.setStatus(pod, { phase: 'Pending', reason: 'first' });
  await waitUntil(() => patches()[0]?.code === 500, 'the failed write', api);
  manager.setStatus(pod, running);
  await waitUntil(() => patches().some((c) => c.code === 200), 'the retried write', api);
  expect(patches().map((c) => (c.body as { status: PodStatus }).status.phase)).toEqual(['Pending', 'Running']);
});

describe('a write the API server refuses for good is dropped', () => {
  test.each<[string, number, () => void, PodStatus | undefined]>([
    ['the pod is gone', 404, () => api.remove(POD), undefined],
    ['a new pod took the name (the uid in the patch is not its uid)', 422, () => apiPod({ phase: 'Pending' }, { uid: 'new-pod' }), { phase: 'Pending' }],
    ['a conflict', 409, () => api.failNext(1, 409), { phase: 'Pending' }],
  ])('%s: %s', async (_name, code, refuse, left) => {
    const pod = apiPod();
    refuse();
    manager.setStatus(pod, running);
    await manager.settled();
    expect(patches().map((c) => c.code)).toEqual([code]);
    // Forgotten: a watch event that shows the old status does not bring the write back.
    manager.observe(pod);
    await manager.settled();
    expect(patches()).toHaveLength(1);
    expect(api.object<Pod>(POD)?.status).toEqual(left);
  });
});

test('a status that drifted on the API server is written again when the watch shows it', async () => {
  manager.setStatus(apiPod(), running);
  await manager.settled();
  const drifted = api.put<Pod>(POD, { ...api.object<Pod>(POD)!, status: { phase: 'Pending' } });
  manager.observe(drifted);
  await manager.settled();
  expect(patches()).toHaveLength(2);
  expect(api.object<Pod>(POD)!.status).toEqual(running);
});

describe('terminated', () => {
  const succeeded: PodStatus = { phase: 'Succeeded', containerStatuses: [{ name: 'c', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] };

  test('a pod being deleted: its final status, then a DELETE with grace 0 and its uid as precondition', async () => {
    const pod = apiPod(running, { deletionTimestamp: T1, deletionGracePeriodSeconds: 30 });
    manager.setStatus(pod, succeeded);
    manager.terminated(pod);
    await manager.settled();
    // Status writes first (all answered), the DELETE last.
    expect(api.calls.at(-1)!.method).toBe('DELETE');
    expect(api.calls.slice(0, -1).map((c) => `${c.method} ${c.code}`)).toEqual(api.calls.slice(0, -1).map(() => 'PATCH 200'));
    expect(api.callsOf('DELETE')).toEqual([{ method: 'DELETE', path: POD, body: { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } }, code: 200 }]);
    // The final status was written before the pod went.
    expect((patches().at(-1)!.body as { status: PodStatus }).status).toEqual(succeeded);
    expect(api.object(POD)).toBeUndefined();
  });

  async function setThenTerminate(between: () => Promise<void>) {
    const pod = apiPod(running, { deletionTimestamp: T1, deletionGracePeriodSeconds: 30 });
    manager.setStatus(pod, succeeded);
    await between();
    manager.terminated(pod);
    await manager.settled();
    expect(api.calls.map((c) => `${c.method} ${c.path} ${c.code}`)).toEqual([`PATCH ${POD}/status 200`, `DELETE ${POD} 200`]);
    expect(patches()[0].body).toEqual({ metadata: { uid: pod.metadata.uid }, status: succeeded });
  }

  test('a status set and written, then the pod terminated with the copy from before that write: one PATCH, then the DELETE', async () => {
    await setThenTerminate(() => manager.settled());
  });

  // terminated() replaces the entry while the PATCH is in flight: the API server's answer still reaches the new
  // entry, so the same status is not PATCHed again.
  test('a status set, then the pod terminated in the same turn: one PATCH, then the DELETE', async () => {
    await setThenTerminate(async () => undefined);
  });

  describe('a pod with no status, and none set for it', () => {
    const bare = (extra: Partial<Pod['metadata']> = {}) => api.put<Pod>(POD, { metadata: { name: 'web', namespace: 'default', ...extra }, spec: { nodeName: 'n1' } });
    /** The watch: every write shows up as the API server's copy, until nothing more is written. */
    async function watchSettles(): Promise<void> {
      for (let i = 0; i < 5; i++) {
        manager.observe(api.object<Pod>(POD) ?? bare());
        await manager.settled();
      }
    }

    test('being deleted: the DELETE alone, with grace 0 and its uid as precondition', async () => {
      const pod = bare({ deletionTimestamp: T1, deletionGracePeriodSeconds: 30 });
      expect(pod.status).toBeUndefined();
      manager.terminated(pod);
      await manager.settled();
      expect(api.calls.map((c) => `${c.method} ${c.path} ${c.code}`)).toEqual([`DELETE ${POD} 200`]);
      expect(api.callsOf('DELETE')[0].body).toEqual({ gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } });
      expect(api.object(POD)).toBeUndefined();
    });

    test('not yet being deleted: nothing written however often the watch shows it; the DELETE once it is', async () => {
      const pod = bare();
      manager.terminated(pod);
      await manager.settled();
      await watchSettles();
      expect(api.calls).toEqual([]);
      manager.observe(api.put<Pod>(POD, { ...pod, metadata: { ...pod.metadata, deletionTimestamp: T1 } }));
      await manager.settled();
      expect(api.calls.map((c) => `${c.method} ${c.path} ${c.code}`)).toEqual([`DELETE ${POD} 200`]);
      expect(api.callsOf('DELETE')[0].body).toEqual({ gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } });
    });
  });

  test('a pod not being deleted only gets its status; the DELETE waits for its deletionTimestamp', async () => {
    const pod = apiPod(running);
    manager.setStatus(pod, succeeded);
    await manager.settled();
    manager.terminated(api.object<Pod>(POD)!);
    await manager.settled();
    expect(api.callsOf('DELETE')).toEqual([]);
    const deleting = api.put<Pod>(POD, { ...api.object<Pod>(POD)!, metadata: { ...api.object<Pod>(POD)!.metadata, deletionTimestamp: T1 } });
    manager.observe(deleting);
    await manager.settled();
    expect(api.callsOf('DELETE').map((c) => c.body)).toEqual([{ gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } }]);
    expect(patches()).toHaveLength(1);
  });

  test('a pod whose name another pod took is not deleted (uid precondition)', async () => {
    const old = apiPod(succeeded, { deletionTimestamp: T1 });
    const replacement = apiPod({ phase: 'Pending' }, { uid: 'new-pod' });
    manager.terminated(old);
    await manager.settled();
    expect(api.callsOf('DELETE').map((c) => c.code)).toEqual([409]);
    expect(api.object<Pod>(POD)).toEqual(replacement);
  });

  test('a DELETE that failed is tried again', async () => {
    const pod = apiPod(succeeded, { deletionTimestamp: T1 });
    api.failNext(1, 500, (c) => c.method === 'DELETE');
    manager.terminated(pod);
    await waitUntil(() => api.object(POD) === undefined, 'the pod to be deleted', api);
    expect(api.callsOf('DELETE').map((c) => c.code)).toEqual([500, 200]);
  });
});

test('one pod never has two writes in flight; what changed meanwhile is written once the first returns', async () => {
  const pod = apiPod();
  const release = api.pauseNext((c) => c.method === 'PATCH');
  manager.setStatus(pod, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: T0 }] });
  await waitUntil(() => api.inFlightOn(`${POD}/status`) === 1, 'the first write in flight', api);
  manager.setStatus(pod, { ...running, phase: 'Running' });
  manager.setStatus(pod, { ...running, phase: 'Succeeded' });
  // However long the first write takes, the others wait for it.
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  expect(api.inFlightOn(`${POD}/status`)).toBe(1);
  release();
  await waitUntil(() => patches().length === 2 && patches()[1].code === 200, 'the second write', api);
  await manager.settled();
  expect(api.mostInFlightOn(`${POD}/status`)).toBe(1);
  expect(patches().map((c) => (c.body as { status: PodStatus }).status.phase)).toEqual(['Pending', 'Succeeded']);
  expect(api.object<Pod>(POD)!.status!.phase).toBe('Succeeded');
});

test('different pods are written side by side, up to the concurrency', async () => {
  manager = new PodStatusManager({ client: api, log: recordingLog(), concurrency: 2 });
  const releases = ['a', 'b', 'c'].map((name) => api.pauseNext((c) => c.path === `/api/v1/namespaces/default/pods/${name}/status`));
  const pods = ['a', 'b', 'c'].map((name) => api.put<Pod>(`/api/v1/namespaces/default/pods/${name}`, { metadata: { name, namespace: 'default' }, spec: {} }));
  for (const p of pods) manager.setStatus(p, running);
  await waitUntil(() => api.callsOf('PATCH').length === 2, 'two writes in flight', api);
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  expect(api.callsOf('PATCH').map((c) => c.path)).toEqual(['/api/v1/namespaces/default/pods/a/status', '/api/v1/namespaces/default/pods/b/status']);
  for (const r of releases) r();
  await waitUntil(() => api.callsOf('PATCH').filter((c) => c.code === 200).length === 3, 'all three writes', api);
});

describe('contains: whether the API server status already says what ours says', () => {
  const startedAt = '2025-01-01T00:00:05Z';
  test.each<[string, PodStatus | undefined, PodStatus, boolean]>([
    ['no status on the API server', undefined, { phase: 'Pending' }, false],
    ['the same', { phase: 'Running', podIP: '10.1.0.5' }, { phase: 'Running', podIP: '10.1.0.5' }, true],
    ['a different phase', { phase: 'Pending' }, { phase: 'Running' }, false],
    ['fields the server added (defaults, qosClass, others) do not count', { phase: 'Running', qosClass: 'BestEffort', startTime: T0 }, { phase: 'Running' }, true],
    [
      'fields the server added inside a container status do not count',
      { containerStatuses: [{ name: 'c', ready: true, started: true, imageID: 'sha256:1', state: { running: { startedAt } } }] },
      { containerStatuses: [{ name: 'c', ready: true, state: { running: { startedAt } } }] },
      true,
    ],
    [
      'key order does not count',
      { containerStatuses: [{ state: { running: { startedAt } }, ready: true, name: 'c' }] },
      { containerStatuses: [{ name: 'c', ready: true, state: { running: { startedAt } } }] },
      true,
    ],
    [
      'a changed container state counts',
      { containerStatuses: [{ name: 'c', ready: true, state: { running: { startedAt } } }] },
      { containerStatuses: [{ name: 'c', ready: false, state: { terminated: { exitCode: 1, reason: 'Error' } } }] },
      false,
    ],
    ['another container count counts', { containerStatuses: [{ name: 'a' }] }, { containerStatuses: [{ name: 'a' }, { name: 'b' }] }, false],
    ['another pod IP counts', { podIPs: [{ ip: '10.1.0.5' }] }, { podIPs: [{ ip: '10.1.0.6' }] }, false],
    ['an empty list we have and the server left out', { phase: 'Running' }, { phase: 'Running', podIPs: [] }, true],
    ['undefined fields of ours', { phase: 'Running' }, { phase: 'Running', message: undefined }, true],
    [
      "others' conditions (readiness gates, DisruptionTarget) do not count",
      { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: T0 }, { type: 'example.com/gate', status: 'True' }] },
      { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: T0 }] },
      true,
    ],
    ['a condition the server lacks counts', { conditions: [] }, { conditions: [{ type: 'Ready', status: 'True' }] }, false],
    ['a condition with another status counts', { conditions: [{ type: 'Ready', status: 'False' }] }, { conditions: [{ type: 'Ready', status: 'True' }] }, false],
    ['a condition with another reason counts', { conditions: [{ type: 'Ready', status: 'False', reason: 'A' }] }, { conditions: [{ type: 'Ready', status: 'False', reason: 'B' }] }, false],
    ['a condition with another transition time counts', { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: T0 }] }, { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: T1 }] }, false],
    [
      'an empty reason is no reason; the probe time does not count',
      { conditions: [{ type: 'Ready', status: 'True', lastProbeTime: T0 }] },
      { conditions: [{ type: 'Ready', status: 'True', reason: '', message: '', lastProbeTime: null }] },
      true,
    ],
  ])('%s -> %s', (_name, api, ours, want) => {
    expect(contains(api, ours)).toBe(want);
  });
});
