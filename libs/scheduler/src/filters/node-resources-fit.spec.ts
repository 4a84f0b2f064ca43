import { node, pod, type PodSpec } from '../../test/fixtures';
import { nodeInfoFor } from '../node-info';
import type { Pod, ResourceList } from '../types';
import { nodeResourcesFit } from './node-resources-fit';

const alloc: ResourceList = { cpu: '2', memory: '4Gi', 'ephemeral-storage': '10Gi', pods: '3', 'example.com/gpu': '2' };
const running = (requests: ResourceList) => pod('running', { requests, nodeName: 'n' });

const cases: Array<[string, Pod[], PodSpec, string[] | null]> = [
  ['fits an empty node', [], { requests: { cpu: '1', memory: '1Gi' } }, null],
  ['fits exactly', [running({ cpu: '1500m' })], { requests: { cpu: '500m' } }, null],
  ['cpu short', [running({ cpu: '1500m' })], { requests: { cpu: '600m' } }, ['Insufficient cpu']],
  ['cpu and memory short, each a reason', [running({ cpu: '2', memory: '4Gi' })], { requests: { cpu: '1m', memory: '1' } }, ['Insufficient cpu', 'Insufficient memory']],
  ['ephemeral storage', [], { requests: { 'ephemeral-storage': '11Gi' } }, ['Insufficient ephemeral-storage']],
  ['an extended resource', [running({ 'example.com/gpu': '2' })], { requests: { 'example.com/gpu': '1' } }, ['Insufficient example.com/gpu']],
  ['an extended resource the node lacks', [], { requests: { 'example.com/fpga': '1' } }, ['Insufficient example.com/fpga']],
  ['a pod that requests nothing fits an over-committed node', [running({ cpu: '3' })], {}, null],
  ['too many pods, whatever the requests', [running({}), running({}), running({})].map((p, i) => ({ ...p, metadata: { ...p.metadata, name: `r${i}` } })), {}, ['Too many pods']],
  ['too many pods and cpu short', [running({ cpu: '2' }), running({}), running({})], { requests: { cpu: '1' } }, ['Too many pods', 'Insufficient cpu']],
  // The largest init container sets the floor: max(1 cpu of containers, 3 cpu of init) = 3 > 2.
  ['an init container larger than the containers', [], { requests: { cpu: '1' }, initContainers: [{ name: 'i', resources: { requests: { cpu: '3' } } }] }, ['Insufficient cpu']],
  // A sidecar (restartable init container) runs with the containers: 1.5 + 1 cpu.
  ['a sidecar adds to the containers', [], { requests: { cpu: '1500m' }, initContainers: [{ name: 's', restartPolicy: 'Always', resources: { requests: { cpu: '1' } } }] }, ['Insufficient cpu']],
  ['the pod overhead counts', [], { requests: { cpu: '1900m' }, overhead: { cpu: '200m' } }, ['Insufficient cpu']],
];

test.each(cases)('%s', (_name, pods, spec, want) => {
  expect(nodeResourcesFit(pod('p', spec), nodeInfoFor(node('n', { allocatable: alloc }), pods))).toEqual(want);
});

test('a node that reports no allocatable takes no pods', () => {
  const bare = { metadata: { name: 'bare' } };
  expect(nodeResourcesFit(pod('p', { requests: { cpu: '1m' } }), nodeInfoFor(bare))).toEqual(['Too many pods', 'Insufficient cpu']);
});
