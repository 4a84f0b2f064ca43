import { node, pod, type PodSpec } from '../../test/fixtures';
import { nodeInfoFor } from '../node-info';
import type { Pod, ResourceList } from '../types';
import { balancedAllocationScore, balancedResourceScore } from './balanced-allocation';

const small: ResourceList = { cpu: '4', memory: '10000', pods: '110' };
const running = (requests: ResourceList) => pod('running', { requests, nodeName: 'n' });

// score = trunc((1 - |cpu fraction - memory fraction| / 2) * 100), fractions capped at 1.
const cases: Array<[string, ResourceList, Pod[], PodSpec, number]> = [
  ['0.25 and 0.2', small, [], { requests: { cpu: '1', memory: '2000' } }, 97],
  ['equal fractions', small, [], { requests: { cpu: '2', memory: '5000' } }, 100],
  ['with a pod on it: 0.75 and 0.7', small, [running({ cpu: '2', memory: '5000' })], { requests: { cpu: '1', memory: '2000' } }, 97],
  ['a fraction over 1 counts as 1: 1 and 0.5', small, [], { requests: { cpu: '8', memory: '5000' } }, 75],
  ['cpu only: 0.25 and 0', small, [], { requests: { cpu: '1' } }, 87],
  ['running pods count as requested, without defaults', small, [running({})], { requests: { cpu: '1' } }, 87],
  ['a best-effort pod is not scored (1.33)', small, [running({ cpu: '3' })], {}, 0],
  ['a single resource has no deviation', { cpu: '4' }, [], { requests: { cpu: '1', memory: '2000' } }, 100],
];

test.each(cases)('%s', (_name, allocatable, pods, spec, want) => {
  expect(balancedAllocationScore(pod('p', spec), nodeInfoFor(node('n', { allocatable }), pods))).toBe(want);
});

test('three resources use the standard deviation', () => {
  // fractions 0.2, 0.5, 0.8: mean 0.5, std sqrt(0.06) = 0.2449 -> 75
  expect(balancedResourceScore([[10, 2], [10, 5], [10, 8]])).toBe(75);
});
