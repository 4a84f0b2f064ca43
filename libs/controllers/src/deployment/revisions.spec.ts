import { deployment, replicaSet } from '../../test/workload-fixtures';
import { maxRevision, revisionOf, setNewReplicaSetAnnotations } from './revisions';

describe('setNewReplicaSetAnnotations', () => {
  test('a new ReplicaSet: the revision, the replica annotations and the Deployment\'s own annotations', () => {
    const d = deployment({ replicas: 3 });
    d.metadata.annotations = { team: 'a', 'kubectl.kubernetes.io/last-applied-configuration': '{}', 'deployment.kubernetes.io/revision': '4' };
    const rs = replicaSet({ name: 'web-x', replicas: 1 });
    expect(setNewReplicaSetAnnotations(d, rs, 5, false, { desired: 3, max: 4 })).toBe(true);
    expect(rs.metadata.annotations).toEqual({ team: 'a', 'deployment.kubernetes.io/revision': '5', 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4' });
  });

  test.each([
    ['reused (a rollback): revision raised, the old one kept in the history', 1, '', 3, '3', '1'],
    ['reused twice', 3, '1', 5, '5', '1,3'],
    ['already the latest: unchanged', 5, '', 5, '5', undefined],
  ])('%s', (_name, had, history, next, revision, newHistory) => {
    const rs = replicaSet({ name: 'web-x', replicas: 1, revision: had });
    if (history) rs.metadata.annotations!['deployment.kubernetes.io/revision-history'] = history;
    setNewReplicaSetAnnotations(deployment({ replicas: 1 }), rs, next, true, { desired: 1, max: 2 });
    expect(rs.metadata.annotations!['deployment.kubernetes.io/revision']).toBe(revision);
    expect(rs.metadata.annotations!['deployment.kubernetes.io/revision-history']).toBe(newHistory);
  });
});

test('revisions: absent is 0, unreadable is skipped', () => {
  const bad = replicaSet({ name: 'b', replicas: 0 });
  bad.metadata.annotations!['deployment.kubernetes.io/revision'] = 'x';
  expect(revisionOf(replicaSet({ name: 'a', replicas: 0 }))).toBe(0);
  expect(revisionOf(bad)).toBeUndefined();
  expect(maxRevision([bad, replicaSet({ name: 'c', replicas: 0, revision: 7 }), replicaSet({ name: 'd', replicas: 0, revision: 3 })])).toBe(7);
});
