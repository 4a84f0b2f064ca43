import { pod, replicaSet } from '../../test/workload-fixtures';
import { calculateReplicaSetStatus, replicaSetStatusUnchanged } from './replicaset-status';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

describe('calculateReplicaSetStatus', () => {
  test.each([
    ['no pods', 0, [], { replicas: 0, fullyLabeledReplicas: 0, readyReplicas: 0, availableReplicas: 0 }],
    ['ready pods are available at once without minReadySeconds', 0, [pod({ ready: true, readySince: ago(1) }), pod({ ready: false }), pod()], { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 1, availableReplicas: 1 }],
    ['minReadySeconds: ready long enough counts, just ready does not', 30, [pod({ ready: true, readySince: ago(31) }), pod({ ready: true, readySince: ago(5) })], { replicas: 2, readyReplicas: 2, availableReplicas: 1 }],
    ['a pod missing a template label is not fully labeled', 0, [pod({ labels: { app: 'web', extra: 'x' } }), pod({ labels: { other: 'x' } })], { replicas: 2, fullyLabeledReplicas: 1 }],
  ])('%s', (_name, minReadySeconds, pods, expected) => {
    const rs = replicaSet({ name: 'rs', replicas: 3 });
    rs.spec!.minReadySeconds = minReadySeconds;
    expect(calculateReplicaSetStatus(rs, pods, undefined, NOW)).toMatchObject(expected);
  });

  test.each([
    ['too few pods', 1, 'FailedCreate'],
    ['too many pods', 5, 'FailedDelete'],
  ])('a failed sync with %s adds ReplicaFailure %s, a good one removes it', (_name, count, reason) => {
    const rs = replicaSet({ name: 'rs', replicas: 3 });
    const pods = Array.from({ length: count }, (_, i) => pod({ name: `p${i}` }));
    const failed = calculateReplicaSetStatus(rs, pods, new Error('pods "x" is forbidden: exceeded quota'), NOW);
    expect(failed.conditions).toEqual([{ type: 'ReplicaFailure', status: 'True', reason, message: 'pods "x" is forbidden: exceeded quota', lastTransitionTime: '2025-06-01T12:00:00Z' }]);
    rs.status = failed;
    expect(calculateReplicaSetStatus(rs, pods, undefined, NOW).conditions).toBeUndefined();
  });
});

describe('replicaSetStatusUnchanged', () => {
  type Case = [string, (rs: ReturnType<typeof replicaSet>, status: NonNullable<ReturnType<typeof replicaSet>['status']>) => void, boolean];
  test.each<Case>([
    ['the same counts, generation observed', () => undefined, true],
    ['a count changed', (_rs, status) => (status.readyReplicas = 1), false],
    ['a new generation to observe', (rs) => (rs.metadata.generation = 2), false],
  ])('%s', (_name, change, unchanged) => {
    const rs = replicaSet({ name: 'rs', replicas: 2 });
    rs.status = { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 0, availableReplicas: 0, observedGeneration: 1 };
    const status = { ...rs.status };
    change(rs, status);
    expect(replicaSetStatusUnchanged(rs, status)).toBe(unchanged);
  });
});
