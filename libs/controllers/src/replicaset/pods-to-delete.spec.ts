import { pod } from '../../test/workload-fixtures';
import { deleteBefore, deletionCost, podsToDelete, rankByRelatedPodsOnSameNode } from './pods-to-delete';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

describe('deleteBefore: which of two pods a ReplicaSet deletes first', () => {
  const cases: Array<[string, Parameters<typeof pod>[0], Parameters<typeof pod>[0]]> = [
    ['unscheduled before scheduled', { node: '' }, { node: 'n1' }],
    ['Pending before Unknown', { node: 'n1', phase: 'Pending' }, { node: 'n1', phase: 'Unknown' }],
    ['Unknown before Running', { node: 'n1', phase: 'Unknown' }, { node: 'n1', phase: 'Running' }],
    ['no phase sorts as Pending, before Running', { node: 'n1', phase: '' }, { node: 'n1', phase: 'Running' }],
    ['not ready before ready', { node: 'n1', ready: false }, { node: 'n1', ready: true }],
    ['lower deletion cost before higher', { node: 'n1', ready: true, cost: '-5' }, { node: 'n1', ready: true, cost: '10' }],
    ['an unreadable cost counts as 0', { node: 'n1', ready: true, cost: '+7' }, { node: 'n1', ready: true, cost: '1' }],
    ['ready for less time before ready for longer (different log2 buckets)', { node: 'n1', ready: true, readySince: ago(10) }, { node: 'n1', ready: true, readySince: ago(3600) }],
    ['a ready time that is missing counts as newest', { node: 'n1', ready: true }, { node: 'n1', ready: true, readySince: ago(10) }],
    ['more restarts before fewer', { node: 'n1', ready: true, readySince: ago(60), restarts: 5 }, { node: 'n1', ready: true, readySince: ago(60), restarts: 1 }],
    ['newer before older', { node: 'n1', created: ago(5) }, { node: 'n1', created: ago(3000) }],
    ['same age bucket: lower uid first', { node: 'n1', created: ago(100), uid: 'a' }, { node: 'n1', created: ago(101), uid: 'b' }],
  ];
  test.each(cases)('%s', (_name, first, second) => {
    const a = { pod: pod(first), rank: 0 };
    const b = { pod: pod(second), rank: 0 };
    expect(deleteBefore(a, b, NOW)).toBe(true);
    expect(deleteBefore(b, a, NOW)).toBe(false);
  });

  test('a pod doubled up on a node goes before one alone on its node', () => {
    expect(deleteBefore({ pod: pod({ node: 'n1' }), rank: 2 }, { pod: pod({ node: 'n2' }), rank: 1 }, NOW)).toBe(true);
  });

  test('readiness outranks phase order only after phase: a Running not-ready pod stays after a Pending ready one', () => {
    expect(deleteBefore({ pod: pod({ node: 'n', phase: 'Pending', ready: true }), rank: 0 }, { pod: pod({ node: 'n', phase: 'Running', ready: false }), rank: 0 }, NOW)).toBe(true);
  });
});

describe('deletionCost', () => {
  test.each([
    ['10', 10],
    ['-3', -3],
    ['0', 0],
    ['007', 0],
    ['+1', 0],
    ['x', 0],
    ['2147483648', 0],
  ])('%s -> %d', (text, cost) => {
    expect(deletionCost(pod({ cost: text }))).toBe(cost);
  });
});

test('rankByRelatedPodsOnSameNode counts active related pods per node', () => {
  const related = [pod({ name: 'a', node: 'n1' }), pod({ name: 'b', node: 'n1' }), pod({ name: 'c', node: 'n2' }), pod({ name: 'd', node: 'n2', phase: 'Failed' })];
  expect(rankByRelatedPodsOnSameNode([related[0], related[2]], related).map((r) => r.rank)).toEqual([2, 1]);
});

test('podsToDelete picks the least useful pods in order', () => {
  const pods = [
    pod({ name: 'serving-old', node: 'n1', ready: true, readySince: ago(7200), created: ago(7300) }),
    pod({ name: 'pending', node: '', phase: 'Pending', created: ago(10) }),
    pod({ name: 'serving-new', node: 'n2', ready: true, readySince: ago(30), created: ago(40) }),
    pod({ name: 'starting', node: 'n3', ready: false, created: ago(20) }),
  ];
  expect(podsToDelete(pods, pods, 3, NOW).map((p) => p.metadata.name)).toEqual(['pending', 'starting', 'serving-new']);
  expect(podsToDelete(pods, pods, 4, NOW)).toHaveLength(4);
});
