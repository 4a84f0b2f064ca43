import { deployment, pod, replicaSet } from '../../test/workload-fixtures';
import type { ReplicaSet } from '../workloads/types';
import { findActiveOrLatest, isSaturated, newReplicaSetTarget, oldPodsRunning, oldReplicaSetScaleDowns, proportionalScale, type ScaleStep } from './rollout-plan';

const steps = (s: ScaleStep[]) => s.map((x) => [x.rs.metadata.name, x.to]);
const older = '2025-01-01T00:00:00Z';
const newer = '2025-01-02T00:00:00Z';

describe('newReplicaSetTarget: how far the new ReplicaSet grows in one step', () => {
  test.each([
    ['first step of 3 with 25% surge: one extra pod', deployment({ replicas: 3 }), [replicaSet({ name: 'old', replicas: 3, available: 3 })], 0, 1],
    ['surge used up: stays', deployment({ replicas: 3 }), [replicaSet({ name: 'old', replicas: 3, available: 3 })], 1, 1],
    ['10 with 25% surge: three at once', deployment({ replicas: 10 }), [replicaSet({ name: 'old', replicas: 10, available: 10 })], 0, 3],
    ['old ones shrunk: grows into the room, not past spec.replicas', deployment({ replicas: 3 }), [replicaSet({ name: 'old', replicas: 0 })], 1, 3],
    ['larger than the Deployment: back to spec.replicas', deployment({ replicas: 3 }), [], 5, 3],
    ['Recreate: all at once', deployment({ replicas: 4, strategy: 'Recreate' }), [replicaSet({ name: 'old', replicas: 0 })], 0, 4],
  ])('%s', (_name, d, olds, newSize, target) => {
    const newRS = replicaSet({ name: 'new', replicas: newSize, image: 'nginx:2' });
    expect(newReplicaSetTarget(d, [...olds, newRS], newRS)).toBe(target);
  });
});

describe('oldReplicaSetScaleDowns: which old ReplicaSets shrink in one step', () => {
  const cases: Array<[string, ReturnType<typeof deployment>, ReplicaSet[], ReplicaSet, Array<[string | undefined, number]>]> = [
    ['new pods not available yet: nothing goes (3, surge 1, unavailable 0)', deployment({ replicas: 3 }), [replicaSet({ name: 'old', replicas: 3, available: 3 })], replicaSet({ name: 'new', replicas: 1 }), []],
    ['a new pod available: one old pod goes', deployment({ replicas: 3 }), [replicaSet({ name: 'old', replicas: 3, available: 3 })], replicaSet({ name: 'new', replicas: 1, available: 1 }), [['old', 2]]],
    [
      'unhealthy old pods go first, then no more while availability is at its minimum',
      deployment({ replicas: 3 }),
      [replicaSet({ name: 'old', replicas: 3, available: 1 })],
      replicaSet({ name: 'new', replicas: 1, available: 1 }),
      [['old', 2]],
    ],
    [
      'the oldest ReplicaSet shrinks first',
      deployment({ replicas: 4, maxSurge: 0, maxUnavailable: 2 }),
      [replicaSet({ name: 'b', replicas: 2, available: 2, created: newer }), replicaSet({ name: 'a', replicas: 2, available: 2, created: older })],
      replicaSet({ name: 'new', replicas: 0 }),
      [['a', 0]],
    ],
    [
      'cleanup and scale-down of the same ReplicaSet are two steps',
      deployment({ replicas: 4, maxSurge: 0, maxUnavailable: 2 }),
      [replicaSet({ name: 'old', replicas: 4, available: 3 })],
      replicaSet({ name: 'new', replicas: 0 }),
      [['old', 3], ['old', 2]],
    ],
    ['no old pods: nothing to do', deployment({ replicas: 3 }), [replicaSet({ name: 'old', replicas: 0 })], replicaSet({ name: 'new', replicas: 3, available: 3 }), []],
  ];
  test.each(cases)('%s', (_name, d, olds, newRS, expected) => {
    const active = olds.filter((rs) => (rs.spec?.replicas ?? 0) > 0);
    expect(steps(oldReplicaSetScaleDowns(d, [...olds, newRS], active, newRS))).toEqual(expected);
  });
});

describe('proportionalScale: resizing a Deployment outside a rollout step', () => {
  test.each([
    ['one active ReplicaSet takes the whole size', deployment({ replicas: 5 }), replicaSet({ name: 'new', replicas: 3, desired: 3 }), [replicaSet({ name: 'old', replicas: 0 })], [['new', 5]]],
    ['already that size: nothing', deployment({ replicas: 3 }), replicaSet({ name: 'new', replicas: 3, desired: 3 }), [], []],
    ['nothing active: the new one gets it', deployment({ replicas: 2 }), replicaSet({ name: 'new', replicas: 0 }), [replicaSet({ name: 'old', replicas: 0 })], [['new', 2]]],
    [
      'scaled up mid-rollout: shared by size (10 -> 20, no surge)',
      deployment({ replicas: 20, maxSurge: 0, maxUnavailable: 1, statusReplicas: 10 }),
      replicaSet({ name: 'new', replicas: 4, desired: 10, max: 10, created: newer, image: 'nginx:2' }),
      [replicaSet({ name: 'old', replicas: 6, desired: 10, max: 10, created: older })],
      [['old', 12], ['new', 8]],
    ],
    [
      'scaled down mid-rollout: shared by size (10 -> 5, no surge)',
      deployment({ replicas: 5, maxSurge: 0, maxUnavailable: 1, statusReplicas: 10 }),
      replicaSet({ name: 'new', replicas: 4, desired: 10, max: 10, created: newer, image: 'nginx:2' }),
      [replicaSet({ name: 'old', replicas: 6, desired: 10, max: 10, created: older })],
      [['old', 3], ['new', 2]],
    ],
    [
      'equal sizes growing: the newer one first takes the leftover',
      deployment({ replicas: 5, maxSurge: 0, maxUnavailable: 1, statusReplicas: 4 }),
      replicaSet({ name: 'new', replicas: 2, desired: 4, max: 4, created: newer, image: 'nginx:2' }),
      [replicaSet({ name: 'old', replicas: 2, desired: 4, max: 4, created: older })],
      [['new', 3], ['old', 2]],
    ],
  ])('%s', (_name, d, newRS, olds, expected) => {
    expect(steps(proportionalScale(d, newRS, olds))).toEqual(expected);
  });

  test('a saturated new ReplicaSet sends the old ones to 0', () => {
    const d = deployment({ replicas: 3 });
    const newRS = replicaSet({ name: 'new', replicas: 3, desired: 3, available: 3, image: 'nginx:2' });
    expect(isSaturated(d, newRS)).toBe(true);
    expect(steps(proportionalScale(d, newRS, [replicaSet({ name: 'old', replicas: 1 })]))).toEqual([['old', 0]]);
  });
});

test('findActiveOrLatest: the only active one, the newest when none is, none when several are', () => {
  const a = replicaSet({ name: 'a', replicas: 0, created: older });
  const b = replicaSet({ name: 'b', replicas: 0, created: newer });
  expect(findActiveOrLatest(undefined, [a, b])?.metadata.name).toBe('b');
  expect(findActiveOrLatest(undefined, [replicaSet({ name: 'x', replicas: 2 }), b])?.metadata.name).toBe('x');
  expect(findActiveOrLatest(replicaSet({ name: 'n', replicas: 1 }), [replicaSet({ name: 'x', replicas: 2 })])).toBeUndefined();
});

describe('oldPodsRunning: Recreate waits for these to be gone', () => {
  const newRS = replicaSet({ name: 'new', replicas: 0 });
  const old = replicaSet({ name: 'old', replicas: 0, actual: 0 });
  test.each([
    ['an old ReplicaSet still reports pods', [replicaSet({ name: 'old', replicas: 0, actual: 1 })], new Map(), true],
    ['an old pod still running', [old], new Map([['uid-old', [pod({ phase: 'Running' })]]]), true],
    ['an old pod Pending', [old], new Map([['uid-old', [pod({ phase: 'Pending' })]]]), true],
    ['old pods finished', [old], new Map([['uid-old', [pod({ phase: 'Succeeded' }), pod({ phase: 'Failed' })]]]), false],
    ['only the new ReplicaSet has pods', [old], new Map([['uid-new', [pod({ phase: 'Running' })]]]), false],
  ])('%s', (_name, olds, pods, running) => {
    expect(oldPodsRunning(newRS, olds, pods)).toBe(running);
  });
});
