// The sync loop against an in-memory runtime and a clock moved by hand: what it asks the runtime to do, and what
// it reports, for each thing a source or the runtime can do.
import type { LoopClock } from './periodic-tasks';
import { PodSyncFailure, type AdmissionRefusal, type PodLifecycle, type PodSyncResult, type RuntimeListing } from './pod-lifecycle';
import type { PodSourceName } from './pod-source-sets';
import { PodSyncLoop, type PodSyncLoopOptions } from './pod-sync-loop';
import type { Pod, PodStatus } from './types';

/** Timers that fire only when the test moves time; the work they start settles before the next one fires. */
class ManualClock implements LoopClock {
  t = Date.parse('2025-01-01T00:00:00Z');
  private timers: Array<{ at: number; id: number; fn: () => void }> = [];
  private ids = 0;

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.ids;
    this.timers.push({ at: this.t + ms, id, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== handle);
  }

  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = end;
    await settle();
  }
}

/** Every promise chain that waits for nothing but other promises has run. */
const settle = () => new Promise<void>((r) => setImmediate(r));

/** A hand-held gate: syncs wait on it until the test opens it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

/** A runtime in memory: what runs is a set of uids, each pod's state a string the test changes. */
class FakeRuntime implements PodLifecycle {
  readonly calls: string[] = [];
  readonly running = new Set<string>();
  /** The fingerprint of each pod's runtime state (absent: nothing held). */
  readonly state = new Map<string, string>();
  readonly exitCode = new Map<string, number>();
  readonly retryAt = new Map<string, number>();
  refuse: ((pod: Pod) => AdmissionRefusal | null) | undefined;
  hold: Promise<void> | undefined;
  failNextSync = false;
  failWithStatus: PodStatus | undefined;
  private active = new Map<string, number>();
  maxActivePerPod = 0;

  async sync(pod: Pod): Promise<PodSyncResult> {
    const uid = pod.metadata.uid!;
    this.calls.push(`sync ${pod.metadata.name}`);
    this.enter(uid);
    try {
      if (this.hold) await this.hold;
      if (this.failNextSync) {
        this.failNextSync = false;
        throw new Error('runtime down');
      }
      if (this.failWithStatus) {
        const status = this.failWithStatus;
        this.failWithStatus = undefined;
        throw new PodSyncFailure('sandbox refused', status);
      }
      this.running.add(uid);
      if (!this.state.has(uid)) this.state.set(uid, 'started');
      const status: PodStatus = { phase: 'Running', containerStatuses: [{ name: 'c', state: { running: {} } }] };
      return { status, retryAt: this.retryAt.get(uid) ?? 0, fingerprint: this.state.get(uid)! };
    } finally {
      this.leave(uid);
    }
  }

  async kill(uid: string, pod: Pod | null): Promise<PodStatus | undefined> {
    this.calls.push(pod ? `kill ${pod.metadata.name}` : `kill uid ${uid}`);
    this.enter(uid);
    try {
      if (this.hold) await this.hold;
      this.running.delete(uid);
      this.state.set(uid, 'stopped');
      if (!pod) return undefined;
      return { phase: 'Running', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: this.exitCode.get(uid) ?? 0 } } }] };
    } finally {
      this.leave(uid);
    }
  }

  async relist(): Promise<RuntimeListing> {
    return { fingerprints: new Map(this.state), running: new Set(this.running) };
  }

  admit(pod: Pod): AdmissionRefusal | null {
    return this.refuse?.(pod) ?? null;
  }

  private enter(uid: string): void {
    const n = (this.active.get(uid) ?? 0) + 1;
    this.active.set(uid, n);
    this.maxActivePerPod = Math.max(this.maxActivePerPod, n);
  }

  private leave(uid: string): void {
    this.active.set(uid, this.active.get(uid)! - 1);
  }
}

function pod(name: string, extra: { uid?: string; namespace?: string; rv?: string; deleting?: boolean } = {}): Pod {
  return {
    metadata: {
      name,
      namespace: extra.namespace ?? 'default',
      uid: extra.uid ?? `uid-${name}`,
      resourceVersion: extra.rv ?? '1',
      ...(extra.deleting ? { deletionTimestamp: '2025-01-01T00:00:00Z', deletionGracePeriodSeconds: 5 } : {}),
    },
    spec: { containers: [{ name: 'c' }] },
  };
}

let clock: ManualClock;
let runtime: FakeRuntime;
let loop: PodSyncLoop;
let logs: string[];
let reported: { status: Array<[string, PodStatus]>; terminated: string[]; staticPods: string[][] };

function startLoop(options: Partial<PodSyncLoopOptions> = {}, sources: PodSourceName[] = ['file', 'api']): PodSyncLoop {
  loop = new PodSyncLoop({
    lifecycle: runtime,
    sources,
    clock,
    log: (msg) => logs.push(msg),
    reports: {
      status: (p, s) => reported.status.push([p.metadata.name!, s]),
      terminated: (p) => reported.terminated.push(p.metadata.name!),
      staticPods: (ps) => reported.staticPods.push(ps.map((p) => p.metadata.name!)),
    },
    ...options,
  });
  loop.start();
  return loop;
}

const names = () => loop.pods().map((p) => p.metadata.name).sort();
const statusOf = (name: string) => loop.pods().find((p) => p.metadata.name === name)?.status;

beforeEach(() => {
  clock = new ManualClock();
  runtime = new FakeRuntime();
  logs = [];
  reported = { status: [], terminated: [], staticPods: [] };
});
afterEach(() => loop?.stop());

describe('sources', () => {
  test.each([
    { name: 'same name twice in one source: the second is skipped and logged', sets: [['file', [pod('a', { uid: '1' }), pod('a', { uid: '2' })]]], want: ['a'], logged: true },
    { name: 'same name in two namespaces: both run', sets: [['file', [pod('a', { uid: '1' }), pod('a', { uid: '2', namespace: 'other' })]]], want: ['a', 'a'], logged: false },
    { name: 'same name from two sources: both run', sets: [['file', [pod('a', { uid: '1' })]], ['http', [pod('a', { uid: '2' })]]], want: ['a', 'a'], logged: false },
  ] as Array<{ name: string; sets: Array<[PodSourceName, Pod[]]>; want: string[]; logged: boolean }>)('$name', async ({ sets, want, logged }) => {
    startLoop();
    for (const [source, pods] of sets) loop.setSourcePods(source, pods);
    await settle();
    expect(names()).toEqual(want);
    expect(logs.includes('Error validating pod a_default from file due to duplicate pod name "a", ignoring')).toBe(logged);
  });

  test('pods are annotated copies: source and first-seen time, the given objects untouched', async () => {
    startLoop();
    const given = pod('web');
    const before = structuredClone(given);
    loop.setSourcePods('api', [given]);
    const seen = loop.pods()[0].metadata.annotations!['kubernetes.io/config.seen'];
    expect(loop.pods()[0].metadata.annotations).toEqual({ 'kubernetes.io/config.source': 'api', 'kubernetes.io/config.seen': new Date(clock.t).toISOString() });
    await clock.advance(5_000);
    loop.setSourcePods('api', [given]);
    expect(loop.pods()[0].metadata.annotations!['kubernetes.io/config.seen']).toBe(seen);
    expect(given).toEqual(before);
  });

  test('a static source reports the static pods; the API source does not', async () => {
    startLoop();
    loop.setSourcePods('file', [pod('s1')]);
    loop.setSourcePods('api', [pod('a1')]);
    loop.setSourcePods('http', [pod('s2')]);
    expect(reported.staticPods).toEqual([['s1'], ['s1', 's2']]);
  });

  test('pods handed over before start() are synced by it', async () => {
    runtime = new FakeRuntime();
    loop = new PodSyncLoop({ lifecycle: runtime, sources: ['file'], clock, log: () => undefined });
    loop.setSourcePods('file', [pod('early')]);
    await settle();
    expect(runtime.calls).toEqual([]);
    loop.start();
    await settle();
    expect(runtime.calls).toEqual(['sync early']);
  });
});

describe('admission', () => {
  test('pods beyond maxPods are reported Failed as OutOfpods and never synced', async () => {
    startLoop({ maxPods: 1 });
    loop.setSourcePods('file', [pod('m1'), pod('m2')]);
    await settle();
    expect(runtime.calls).toEqual(['sync m1']);
    const refused = { phase: 'Failed', reason: 'OutOfpods', message: "Node didn't have enough resource: pods, requested: 1, used: 1, capacity: 1", startTime: new Date(clock.t).toISOString() };
    expect(reported.status).toContainEqual(['m2', refused]);
    expect(statusOf('m2')).toEqual(refused);
    await clock.advance(120_000); // relists and resyncs leave it alone
    expect(runtime.calls.filter((c) => c === 'sync m2')).toEqual([]);
  });

  test('the runtime may refuse a pod on its own grounds', async () => {
    runtime.refuse = (p) => (p.metadata.name === 'bad' ? { reason: 'SysctlForbidden', message: 'forbidden sysctl' } : null);
    startLoop();
    loop.setSourcePods('file', [pod('good'), pod('bad')]);
    await settle();
    expect(runtime.calls).toEqual(['sync good']);
    expect(statusOf('bad')).toMatchObject({ phase: 'Failed', reason: 'SysctlForbidden', message: 'forbidden sysctl' });
  });
});

describe('pods that go', () => {
  test('a pod removed from its source is killed, and the runtime may forget it', async () => {
    startLoop();
    loop.setSourcePods('file', [pod('a'), pod('b')]);
    await settle();
    loop.setSourcePods('file', [pod('b')]);
    await settle();
    expect(runtime.calls).toEqual(['sync a', 'sync b', 'kill uid uid-a']);
    expect(names()).toEqual(['b']);
  });

  test.each([
    { exitCode: 0, phase: 'Succeeded' },
    { exitCode: 1, phase: 'Failed' },
  ])('a deleted pod whose container exited $exitCode is killed, reported $phase, then terminated', async ({ exitCode, phase }) => {
    startLoop();
    runtime.exitCode.set('uid-web', exitCode);
    loop.setSourcePods('api', [pod('web')]);
    await settle();
    loop.setSourcePods('api', [pod('web', { rv: '2', deleting: true })]);
    await settle();
    expect(runtime.calls).toEqual(['sync web', 'kill web']);
    expect(reported.status.at(-1)).toEqual(['web', { phase, containerStatuses: [{ name: 'c', state: { terminated: { exitCode } } }] }]);
    expect(reported.terminated).toEqual(['web']);
    await clock.advance(5_000); // its state changed, but a terminated pod is not synced again
    expect(runtime.calls).toEqual(['sync web', 'kill web']);
    loop.setSourcePods('api', []); // the API server removed it
    await settle();
    expect(runtime.calls).toEqual(['sync web', 'kill web', 'kill uid uid-web']);
  });

  test('housekeeping kills what runs unwanted, once every expected source has reported', async () => {
    runtime.running.add('orphan');
    startLoop({}, ['file', 'api']);
    loop.setSourcePods('file', []);
    await clock.advance(10_000);
    expect(runtime.calls).toEqual([]);
    loop.setSourcePods('api', []);
    await clock.advance(2_000);
    expect(runtime.calls).toEqual(['kill uid orphan']);
    await clock.advance(10_000); // nothing runs any more
    expect(runtime.calls).toEqual(['kill uid orphan']);
  });
});

describe('when a pod is synced again', () => {
  test.each([
    { change: 'the same resourceVersion', rv: '1', syncs: 1 },
    { change: 'a new resourceVersion', rv: '2', syncs: 2 },
  ])('an API pod handed over again with $change is synced $syncs time(s)', async ({ rv, syncs }) => {
    startLoop();
    loop.setSourcePods('api', [pod('web')]);
    await settle();
    loop.setSourcePods('api', [pod('web', { rv })]);
    await settle();
    expect(runtime.calls).toEqual(Array(syncs).fill('sync web'));
  });

  test('the relist wakes only the pods whose runtime state changed', async () => {
    startLoop();
    loop.setSourcePods('file', [pod('a'), pod('b'), pod('c')]);
    await settle();
    runtime.calls.length = 0;
    runtime.state.set('uid-b', 'container exited');
    runtime.state.delete('uid-c'); // all gone
    await clock.advance(1_000);
    expect(runtime.calls.sort()).toEqual(['sync b', 'sync c']);
    await clock.advance(3_000); // their syncs took the new states in
    expect(runtime.calls.sort()).toEqual(['sync b', 'sync c']);
  });

  test('the runtime is synced again when it asked to be, not before', async () => {
    runtime.retryAt.set('uid-web', clock.t + 5_000);
    startLoop();
    loop.setSourcePods('file', [pod('web')]);
    await settle();
    runtime.retryAt.delete('uid-web');
    await clock.advance(4_900);
    expect(runtime.calls).toEqual(['sync web']);
    await clock.advance(200);
    expect(runtime.calls).toEqual(['sync web', 'sync web']);
  });

  test('a failed sync is logged and tried again after 10 s', async () => {
    runtime.failNextSync = true;
    startLoop({ relistPeriodMs: 3_600_000 });
    loop.setSourcePods('file', [pod('web')]);
    await settle();
    expect(logs).toContain('Error syncing pod, skipping');
    await clock.advance(9_900);
    expect(runtime.calls).toEqual(['sync web']);
    await clock.advance(200);
    expect(runtime.calls).toEqual(['sync web', 'sync web']);
    expect(statusOf('web')).toMatchObject({ phase: 'Running' });
  });

  test('a failed sync that knows the pod\'s status reports it, and is tried again after 10 s', async () => {
    const waiting: PodStatus = { phase: 'Pending', containerStatuses: [{ name: 'c', state: { waiting: { reason: 'ContainerCreating' } } }] };
    runtime.failWithStatus = waiting;
    startLoop({ relistPeriodMs: 3_600_000 });
    loop.setSourcePods('file', [pod('web')]);
    await settle();
    expect(logs).toContain('Error syncing pod, skipping');
    expect(reported.status).toEqual([['web', waiting]]);
    expect(statusOf('web')).toEqual(waiting);
    await clock.advance(10_100);
    expect(statusOf('web')).toMatchObject({ phase: 'Running' });
  });

  test('every pod is synced each syncFrequency', async () => {
    startLoop({ syncFrequencyMs: 30_000 });
    loop.setSourcePods('file', [pod('a'), pod('b')]);
    await settle();
    await clock.advance(30_000);
    expect(runtime.calls.sort()).toEqual(['sync a', 'sync a', 'sync b', 'sync b']);
  });

  test('one sync at a time per pod; syncs asked for meanwhile make one more after it', async () => {
    startLoop();
    const g = gate();
    runtime.hold = g.wait;
    loop.setSourcePods('file', [pod('web'), pod('other')]);
    await settle();
    for (let i = 0; i < 3; i++) loop.requestSync('uid-web');
    await settle();
    expect(runtime.calls).toEqual(['sync web', 'sync other']); // pods in parallel, each once so far
    runtime.hold = undefined;
    g.open();
    await settle();
    expect(runtime.calls).toEqual(['sync web', 'sync other', 'sync web']);
    expect(runtime.maxActivePerPod).toBe(1);
  });

  test('the syncloop is unhealthy once the relist has not run for max(2 x syncFrequency, 5 min)', async () => {
    startLoop({ syncFrequencyMs: 4 * 60_000, relistPeriodMs: 3_600_000 });
    expect(loop.syncLoopHealthy()).toBeNull();
    clock.t += 8 * 60_000;
    expect(loop.syncLoopHealthy()).toBeNull();
    clock.t += 1;
    expect(loop.syncLoopHealthy()?.message).toBe('sync Loop took longer than expected');
  });
});

test('stop() resolves only once the syncs under way have returned, and nothing runs after it', async () => {
  startLoop();
  const g = gate();
  runtime.hold = g.wait;
  loop.setSourcePods('file', [pod('web')]);
  await settle();
  let stopped = false;
  const stopping = loop.stop().then(() => (stopped = true));
  await settle();
  expect(stopped).toBe(false);
  g.open();
  await stopping;
  loop.requestSync('uid-web');
  await clock.advance(120_000);
  expect(runtime.calls).toEqual(['sync web']);
});
