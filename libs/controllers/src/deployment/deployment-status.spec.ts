import { deployment, replicaSet } from '../../test/workload-fixtures';
import type { Deployment, DeploymentCondition } from '../workloads/types';
import { calculateDeploymentStatus, deploymentStatusEqual, getCondition, rolloutStatus, setCondition, stuckRecheckDelayMs } from './deployment-status';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const T = (offsetSeconds = 0) => new Date(NOW + offsetSeconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

function withProgressing(d: Deployment, reason: string, status = 'True', lastUpdate = T(-10)): Deployment {
  d.status = { ...d.status, conditions: [{ type: 'Progressing', status, reason, message: '', lastUpdateTime: lastUpdate, lastTransitionTime: lastUpdate }] };
  return d;
}

describe('calculateDeploymentStatus: counts and the Available condition', () => {
  test.each([
    ['all available', deployment({ replicas: 3 }), [replicaSet({ name: 'new', replicas: 3, ready: 3, available: 3 })], { replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, unavailableReplicas: 0 }, ['True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.']],
    ['none available', deployment({ replicas: 3 }), [replicaSet({ name: 'new', replicas: 3 })], { replicas: 3, updatedReplicas: 3, readyReplicas: 0, availableReplicas: 0, unavailableReplicas: 3 }, ['False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.']],
    [
      'mid-rollout: old pods count in replicas, not in updatedReplicas',
      deployment({ replicas: 4 }),
      [replicaSet({ name: 'new', replicas: 2, ready: 1, available: 1 }), replicaSet({ name: 'old', replicas: 3, available: 3 })],
      { replicas: 5, updatedReplicas: 2, readyReplicas: 4, availableReplicas: 4, unavailableReplicas: 1 },
      ['True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
    ],
    ['more available than wanted is not negative unavailability', deployment({ replicas: 1 }), [replicaSet({ name: 'new', replicas: 1, actual: 3, available: 3 })], { replicas: 3, updatedReplicas: 3, availableReplicas: 3, unavailableReplicas: 0 }, ['True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.']],
  ])('%s', (_name, d, rss, counts, [status, reason, message]) => {
    const s = calculateDeploymentStatus(rss, rss[0], d, NOW);
    expect(s).toMatchObject({ observedGeneration: 1, ...counts });
    expect(getCondition(s, 'Available')).toMatchObject({ status, reason, message, lastUpdateTime: T(), lastTransitionTime: T() });
  });
});

describe('rolloutStatus: the Progressing condition kubectl rollout status reads', () => {
  const newRS = replicaSet({ name: 'web-5d4f', replicas: 3, ready: 3, available: 3 });
  test.each([
    ['complete: NewReplicaSetAvailable', withProgressing(deployment({ replicas: 3 }), 'ReplicaSetUpdated'), [newRS], ['True', 'NewReplicaSetAvailable', 'ReplicaSet "web-5d4f" has successfully progressed.']],
    [
      'progress since the last status: ReplicaSetUpdated',
      withProgressing(deployment({ replicas: 3 }), 'NewReplicaSetCreated'),
      [replicaSet({ name: 'web-5d4f', replicas: 2, ready: 1, available: 1 }), replicaSet({ name: 'old', replicas: 2, available: 2 })],
      ['True', 'ReplicaSetUpdated', 'ReplicaSet "web-5d4f" is progressing.'],
    ],
    [
      'no progress past the deadline: ProgressDeadlineExceeded',
      withProgressing(deployment({ replicas: 3 }), 'ReplicaSetUpdated', 'True', T(-601)),
      [replicaSet({ name: 'web-5d4f', replicas: 1 }), replicaSet({ name: 'old', replicas: 3, available: 3 })],
      ['False', 'ProgressDeadlineExceeded', 'ReplicaSet "web-5d4f" has timed out progressing.'],
    ],
    [
      'no progress within the deadline: unchanged',
      withProgressing(deployment({ replicas: 3 }), 'ReplicaSetUpdated', 'True', T(-60)),
      [replicaSet({ name: 'web-5d4f', replicas: 1 }), replicaSet({ name: 'old', replicas: 3, available: 3 })],
      ['True', 'ReplicaSetUpdated', ''],
    ],
  ])('%s', (_name, d, rss, [status, reason, message]) => {
    // The counts of the status the Deployment had: what "progress" is measured against.
    d.status = { ...d.status, replicas: 4, updatedReplicas: 1, readyReplicas: 3, availableReplicas: 3 };
    const s = rolloutStatus(rss, rss[0], d, NOW);
    expect(getCondition(s, 'Progressing')).toMatchObject({ status, reason, message });
  });

  test('a completed rollout is not judged again', () => {
    const d = withProgressing(deployment({ replicas: 3 }), 'NewReplicaSetAvailable', 'True', T(-3600));
    const s = rolloutStatus([newRS], newRS, d, NOW);
    expect(getCondition(s, 'Progressing')).toMatchObject({ reason: 'NewReplicaSetAvailable', lastUpdateTime: T(-3600) });
  });

  test('without a progress deadline there is no Progressing condition', () => {
    const d = withProgressing(deployment({ replicas: 3 }), 'ReplicaSetUpdated');
    delete d.spec!.progressDeadlineSeconds;
    expect(getCondition(rolloutStatus([newRS], newRS, d, NOW), 'Progressing')).toBeUndefined();
  });

  test('a ReplicaSet failure becomes the Deployment\'s ReplicaFailure condition', () => {
    const failing = replicaSet({ name: 'web-5d4f', replicas: 3 });
    failing.status!.conditions = [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'quota', lastTransitionTime: T(-5) }];
    expect(getCondition(rolloutStatus([failing], failing, deployment({ replicas: 3 }), NOW), 'ReplicaFailure')).toMatchObject({ status: 'True', reason: 'FailedCreate', message: 'quota' });
  });
});

describe('setCondition', () => {
  const base = (): { conditions: DeploymentCondition[] } => ({ conditions: [{ type: 'Available', status: 'False', reason: 'A', lastTransitionTime: 't0', lastUpdateTime: 't0' }] });
  test.each([
    ['same status and reason: unchanged', { type: 'Available', status: 'False', reason: 'A', lastTransitionTime: 't1', lastUpdateTime: 't1' }, { reason: 'A', lastTransitionTime: 't0', lastUpdateTime: 't0' }],
    ['same status, new reason: transition time kept', { type: 'Available', status: 'False', reason: 'B', lastTransitionTime: 't1', lastUpdateTime: 't1' }, { reason: 'B', lastTransitionTime: 't0', lastUpdateTime: 't1' }],
    ['new status: all new', { type: 'Available', status: 'True', reason: 'B', lastTransitionTime: 't1', lastUpdateTime: 't1' }, { reason: 'B', lastTransitionTime: 't1', lastUpdateTime: 't1' }],
  ])('%s', (_name, condition, expected) => {
    const s = base();
    setCondition(s, condition);
    expect(s.conditions).toHaveLength(1);
    expect(s.conditions[0]).toMatchObject(expected);
  });
});

test('stuckRecheckDelayMs: a rollout without progress is looked at again a second after its deadline', () => {
  const d = withProgressing(deployment({ replicas: 3 }), 'ReplicaSetUpdated', 'True', T(-100));
  expect(stuckRecheckDelayMs(d, { replicas: 3, updatedReplicas: 1 }, NOW)).toBe(501_000);
  expect(stuckRecheckDelayMs(d, { replicas: 3, updatedReplicas: 3, availableReplicas: 3, observedGeneration: 1 }, NOW)).toBeUndefined();
});

test('deploymentStatusEqual ignores zero counts the server leaves out', () => {
  expect(deploymentStatusEqual({ observedGeneration: 1 }, { observedGeneration: 1, replicas: 0, conditions: [] })).toBe(true);
  expect(deploymentStatusEqual({ observedGeneration: 1 }, { observedGeneration: 2 })).toBe(false);
});
