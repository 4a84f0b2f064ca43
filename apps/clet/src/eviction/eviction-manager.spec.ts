import type { Pod } from '../pods/api-types';
import { EvictionManager, type EvictionManagerOptions, type EvictionRequest } from './eviction-manager';
import type { PodUsage } from './pod-usage';
import type { Measurements } from './signals';
import { parseThresholds, type EvictionSettings } from './thresholds';

const Mi = 1024 * 1024;
const none: EvictionSettings = { evictionHard: {}, evictionSoft: {}, evictionSoftGracePeriod: {}, evictionMinimumReclaim: {} };

const pod = (name: string, o: { source?: string; priority?: number; grace?: number; memory?: string; tolerations?: object[] } = {}): Pod => ({
  metadata: { name, namespace: 'default', uid: name, annotations: { 'kubernetes.io/config.source': o.source ?? 'api' } },
  spec: {
    ...(o.priority !== undefined ? { priority: o.priority } : {}),
    ...(o.grace !== undefined ? { terminationGracePeriodSeconds: o.grace } : {}),
    ...(o.tolerations ? { tolerations: o.tolerations } : {}),
    containers: [{ name: 'c', image: 'busybox', ...(o.memory ? { resources: { requests: { memory: o.memory }, limits: { memory: o.memory } } } : {}) }],
  },
}) as unknown as Pod;

/** A manager over a disk whose free space the test sets, a clock it moves, and pods it lists. */
function harness(settings: Partial<EvictionSettings>, o: { pods?: Pod[]; reclaimFrees?: number; maxPodGrace?: number; transitionMs?: number; isolation?: boolean; emptyDir?: number } = {}) {
  const state = { now: 1_000_000, nodefsFree: 100 * Mi, memFree: 1024 * Mi, pods: o.pods ?? [pod('victim')], cleanedUp: new Set<string>() };
  const evicted: EvictionRequest[] = [];
  const nodeEvents: string[] = [];
  let reclaims = 0;
  const opts: EvictionManagerOptions = {
    thresholds: parseThresholds({ ...none, ...settings }),
    pressureTransitionPeriodMs: o.transitionMs ?? 300_000,
    maxPodGracePeriodSeconds: o.maxPodGrace ?? 0,
    localStorageCapacityIsolation: o.isolation ?? false,
    now: () => state.now,
    measure: (): Measurements => ({
      memory: { totalBytes: 2048 * Mi, availableBytes: state.memFree },
      nodefs: { capacityBytes: 100 * Mi, availableBytes: state.nodefsFree, inodes: 1000, inodesFree: 900 },
      pids: { max: 1000, available: 900 },
      // Each measurement is new (upstream only acts on updated stats).
      time: state.now + Math.random(),
    }),
    activePods: () => state.pods.filter((p) => !evicted.some((e) => e.pod === p)),
    usage: async (pods) => new Map<string, PodUsage>(pods.map((p) => [p.metadata.uid!, { containers: [{ name: 'c', ephemeralBytes: 10 * Mi, logsBytes: 0 }], memoryBytes: 10 * Mi, ephemeralBytes: 10 * Mi, ephemeralInodes: 1, processes: 1, emptyDirs: { scratch: o.emptyDir ?? 0 } }])),
    reclaim: (signal) => (signal.startsWith('nodefs') ? [async () => {
      reclaims++;
      state.nodefsFree += o.reclaimFrees ?? 0;
    }] : []),
    evict: (req) => { evicted.push(req); },
    cleanedUp: (p) => state.cleanedUp.has(p.metadata.name!),
    log: () => undefined,
    nodeEvent: (type, reason, message) => nodeEvents.push(`${type} ${reason} ${message}`),
  };
  return { state, evicted, nodeEvents, manager: new EvictionManager(opts), reclaims: () => reclaims };
}

test('a hard threshold evicts one pod per pass with a 1 s grace period and upstream\'s message, after reclaim did not help', async () => {
  const h = harness({ evictionHard: { 'nodefs.available': '50%' } }, { pods: [pod('a'), pod('b')] });
  h.state.nodefsFree = 20 * Mi;
  expect((await h.manager.synchronize())[0]?.metadata.name).toBe('a');
  expect(h.reclaims()).toBe(1);
  expect(h.evicted).toEqual([expect.objectContaining({
    gracePeriodSeconds: 1, signal: 'nodefs.available', disruptionCondition: true,
    message: 'The node was low on resource: ephemeral-storage. Threshold quantity: 50Mi, available: 20Mi. Container c was using 10Mi, request is 0, has larger consumption of ephemeral-storage. ',
  })]);
  expect(h.manager.pressure()).toEqual({ memoryPressure: false, diskPressure: true, pidPressure: false });
  expect(h.nodeEvents).toEqual(['Warning EvictionThresholdMet Attempting to reclaim ephemeral-storage']);
  // Until the evicted pod is cleaned up (or 30 s passed), the passes wait; then the next pod goes: one per pass.
  expect(await h.manager.synchronize()).toEqual([]);
  h.state.cleanedUp.add('a');
  expect((await h.manager.synchronize())[0]?.metadata.name).toBe('b');
});

test('node-level reclaim that frees enough (threshold plus minimum reclaim) evicts nothing', async () => {
  const h = harness({ evictionHard: { 'nodefs.available': '50%' }, evictionMinimumReclaim: { 'nodefs.available': '5Mi' } }, { reclaimFrees: 40 * Mi });
  h.state.nodefsFree = 20 * Mi;
  expect(await h.manager.synchronize()).toEqual([]);
  expect(h.reclaims()).toBe(1);
  expect(h.evicted).toEqual([]);
});

test('reclaim that frees past the threshold but not past the minimum reclaim still evicts', async () => {
  const h = harness({ evictionHard: { 'nodefs.available': '50%' }, evictionMinimumReclaim: { 'nodefs.available': '20Mi' } }, { reclaimFrees: 40 * Mi });
  h.state.nodefsFree = 20 * Mi;
  expect((await h.manager.synchronize())[0]?.metadata.name).toBe('victim');
});

test('memory has no node-level reclaim: the pod over its request goes', async () => {
  const h = harness({ evictionHard: { 'memory.available': '100Mi' } }, { pods: [pod('guaranteed', { memory: '1Gi' }), pod('besteffort')] });
  h.state.memFree = 50 * Mi;
  expect((await h.manager.synchronize())[0]?.metadata.name).toBe('besteffort');
  expect(h.reclaims()).toBe(0);
  expect(h.manager.pressure().memoryPressure).toBe(true);
});

test.each([
  ['static pods', pod('static', { source: 'file' })],
  ['pods of critical priority', pod('critical', { priority: 2_000_000_000 })],
])('%s are never evicted', async (_name, critical) => {
  const h = harness({ evictionHard: { 'nodefs.available': '50%' } }, { pods: [critical] });
  h.state.nodefsFree = 20 * Mi;
  expect(await h.manager.synchronize()).toEqual([]);
  expect(h.evicted).toEqual([]);
  // The node still reports the pressure.
  expect(h.manager.pressure().diskPressure).toBe(true);
});

test.each([
  ['the pod\'s shorter termination grace period', 10, 5, 5],
  ['evictionMaxPodGracePeriod when shorter', 60, 30, 30],
  ['evictionMaxPodGracePeriod 0: at once', 0, 30, 0],
])('a soft threshold waits its grace period, then evicts with %s', async (_name, maxPodGrace, podGrace, want) => {
  const h = harness({ evictionSoft: { 'nodefs.available': '50%' }, evictionSoftGracePeriod: { 'nodefs.available': '1m' } }, { pods: [pod('p', { grace: podGrace })], maxPodGrace });
  h.state.nodefsFree = 20 * Mi;
  expect(await h.manager.synchronize()).toEqual([]);
  // Upstream raises the condition as soon as the threshold is met, grace period or not.
  expect(h.manager.pressure().diskPressure).toBe(true);
  h.state.now += 59_999;
  expect(await h.manager.synchronize()).toEqual([]);
  h.state.now += 1;
  expect((await h.manager.synchronize())[0]?.metadata.name).toBe('p');
  expect(h.evicted[0]?.gracePeriodSeconds).toBe(want);
});

test('a soft threshold that stops being met within its grace period starts the count again', async () => {
  const h = harness({ evictionSoft: { 'nodefs.available': '50%' }, evictionSoftGracePeriod: { 'nodefs.available': '1m' } });
  h.state.nodefsFree = 20 * Mi;
  await h.manager.synchronize();
  h.state.now += 30_000;
  h.state.nodefsFree = 80 * Mi;
  await h.manager.synchronize();
  h.state.now += 30_000;
  h.state.nodefsFree = 20 * Mi;
  expect(await h.manager.synchronize()).toEqual([]);
  h.state.now += 60_000;
  expect(await h.manager.synchronize()).toHaveLength(1);
});

test('the condition is held for the pressure transition period after the threshold stops being met', async () => {
  const h = harness({ evictionHard: { 'nodefs.available': '50%' } }, { pods: [], transitionMs: 60_000 });
  h.state.nodefsFree = 20 * Mi;
  await h.manager.synchronize();
  h.state.nodefsFree = 90 * Mi;
  h.state.now += 59_000;
  await h.manager.synchronize();
  expect(h.manager.pressure().diskPressure).toBe(true);
  h.state.now += 1_000;
  await h.manager.synchronize();
  expect(h.manager.pressure().diskPressure).toBe(false);
});

test.each([
  ['no pressure: every pod', [], pod('be'), null],
  ['memory pressure: a BestEffort pod is refused', ['memory'], pod('be'), 'The node had condition: [MemoryPressure]. '],
  ['memory pressure: a Guaranteed pod is admitted', ['memory'], pod('g', { memory: '64Mi' }), null],
  ['memory pressure: a BestEffort pod tolerating the memory-pressure taint is admitted', ['memory'],
    pod('t', { tolerations: [{ key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' }] }), null],
  ['disk pressure: a Guaranteed pod is refused', ['disk'], pod('g', { memory: '64Mi' }), 'The node had condition: [DiskPressure]. '],
  ['memory and disk pressure: a Guaranteed pod is refused', ['memory', 'disk'], pod('g', { memory: '64Mi' }), 'The node had condition: [MemoryPressure DiskPressure]. '],
  ['disk pressure: a static pod is admitted (critical)', ['disk'], pod('s', { source: 'file' }), null],
])('admission: %s', async (_name, pressures, p, message) => {
  const h = harness({ evictionHard: { 'nodefs.available': '50%', 'memory.available': '100Mi' } }, { pods: [] });
  if (pressures.includes('memory')) h.state.memFree = 50 * Mi;
  if (pressures.includes('disk')) h.state.nodefsFree = 20 * Mi;
  await h.manager.synchronize();
  expect(h.manager.admit(p)).toEqual(message === null ? null : { reason: 'Evicted', message });
});

test('no thresholds: nothing is observed or evicted', async () => {
  const h = harness({});
  h.state.nodefsFree = 0;
  expect(await h.manager.synchronize()).toEqual([]);
  expect(h.manager.pressure()).toEqual({ memoryPressure: false, diskPressure: false, pidPressure: false });
});

test.each([
  ['--local-storage-capacity-isolation: a pod past its emptyDir sizeLimit goes at once, without a disruption condition', true,
    [{ gracePeriodSeconds: 1, signal: 'emptydirfs.limit', disruptionCondition: false, message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ' }]],
  ['isolation off: the limit is not enforced', false, []],
])('%s', async (_name, isolation, want) => {
  const limited = pod('limited');
  limited.spec.volumes = [{ name: 'scratch', emptyDir: { sizeLimit: '1Mi' } }];
  // No thresholds at all, and a node with room: only the limit can evict.
  const h = harness({}, { pods: [limited, pod('other')], isolation, emptyDir: 2 * Mi });
  expect((await h.manager.synchronize()).map((p) => p.metadata.name)).toEqual(want.length ? ['limited'] : []);
  expect(h.evicted.map(({ pod: _p, ...rest }) => rest)).toEqual(want);
});

test('an evicted pod that is not cleaned up within 30 s no longer holds the next eviction back', async () => {
  const h = harness({ evictionHard: { 'nodefs.available': '50%' } }, { pods: [pod('a'), pod('b')] });
  h.state.nodefsFree = 20 * Mi;
  await h.manager.synchronize();
  h.state.now += 29_999;
  expect(await h.manager.synchronize()).toEqual([]);
  h.state.now += 1;
  expect((await h.manager.synchronize())[0]?.metadata.name).toBe('b');
});
