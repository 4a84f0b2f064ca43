import { node, pod, type PodSpec } from '../../test/fixtures';
import { nodeInfoFor } from '../node-info';
import type { Pod, ResourceList } from '../types';
import { leastAllocatedScore, leastRequestedScore } from './least-allocated';

const small: ResourceList = { cpu: '4', memory: '10000', pods: '110' };
const running = (requests: ResourceList) => pod('running', { requests, nodeName: 'n' });

// Expected values worked out from upstream's formula: per resource (allocatable - requested) * 100 / allocatable
// in integers, averaged with weight 1 each, truncated.
const cases: Array<[string, ResourceList, Pod[], PodSpec, number]> = [
  ['an empty node: cpu 75, memory 80', small, [], { requests: { cpu: '1', memory: '2000' } }, 77],
  ['with a pod on it: cpu 25, memory 30', small, [running({ cpu: '2', memory: '5000' })], { requests: { cpu: '1', memory: '2000' } }, 27],
  ['more than allocatable scores 0 for that resource', small, [], { requests: { cpu: '5', memory: '2000' } }, 40],
  // 100m and 200 MiB stand in for missing requests: cpu 97, memory 80.
  ['a pod without requests counts the defaults', { cpu: '4', memory: '1Gi' }, [], {}, 88],
  ['running pods without requests count the defaults too', { cpu: '4', memory: '1Gi' }, [running({}), running({})], { requests: { cpu: '1', memory: '1' } }, 65],
  ['a resource the node has none of is left out', { cpu: '4' }, [], { requests: { cpu: '1', memory: '2000' } }, 75],
  ['a node with nothing allocatable', {}, [], { requests: { cpu: '1' } }, 0],
];

test.each(cases)('%s', (_name, allocatable, pods, spec, want) => {
  expect(leastAllocatedScore(pod('p', spec), nodeInfoFor(node('n', { allocatable }), pods))).toBe(want);
});

test.each([
  [0, 100, 100],
  [50, 100, 50],
  [1, 3, 66],
  [101, 100, 0],
  [1, 0, 0],
  // Large memory amounts stay exact: (2^52 - 1) * 100 / 2^52 truncates to 99, not 100.
  [1, 2 ** 52, 99],
])('leastRequestedScore(%d, %d) = %d', (requested, capacity, want) => {
  expect(leastRequestedScore(requested, capacity)).toBe(want);
});
