import { node, pod, type NodeSpec, type PodSpec } from '../test/fixtures';
import { nodeInfoFor, type NodeInfo } from './node-info';
import { numFeasibleNodesToFind, schedulePod } from './schedule-pod';
import type { Pod } from './types';

const info = (name: string, spec: NodeSpec = {}, pods: Pod[] = []) => nodeInfoFor(node(name, spec), pods.map((p) => ({ ...p, spec: { ...p.spec, nodeName: name } })));
const oneCpu = { allocatable: { cpu: '1', memory: '1Gi', pods: '110' } };

// The FailedScheduling messages as upstream 1.33 writes them.
const failures: Array<[string, PodSpec, NodeInfo[], string]> = [
  ['no nodes at all', {}, [], 'no nodes available to schedule pods'],
  [
    'a nodeSelector no node matches',
    { nodeSelector: { disk: 'ssd' } },
    [info('a'), info('b')],
    "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
  ],
  [
    'not enough cpu, and nobody of lower priority to preempt',
    { requests: { cpu: '2' } },
    [info('a', oneCpu)],
    '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
  ],
  [
    'one reason per node, counted and sorted',
    { requests: { cpu: '2', memory: '2Gi' } },
    [info('a', oneCpu), info('b', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }), info('c', { unschedulable: true }), info('d', { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] })],
    '0/4 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 1 node(s) were unschedulable. ' +
      'preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling.',
  ],
  [
    'lower-priority pods whose removal would not be enough',
    { requests: { cpu: '2' }, priority: 10 },
    [info('a', oneCpu, [pod('low', { requests: { cpu: '500m' }, priority: 0 })])],
    '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu.',
  ],
  [
    'pods of equal priority are no victims',
    { requests: { cpu: '600m' } },
    [info('a', oneCpu, [pod('same', { requests: { cpu: '500m' } })])],
    '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
  ],
  [
    'a pod that may not preempt',
    { requests: { cpu: '2' }, preemptionPolicy: 'Never' },
    [info('a', oneCpu)],
    '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.',
  ],
  [
    // Upstream would preempt the low-priority pod here; its PostFilter then adds nothing to the message.
    'preemption would help',
    { requests: { cpu: '800m' }, priority: 10 },
    [info('a', oneCpu, [pod('low', { requests: { cpu: '500m' }, priority: 0 })])],
    '0/1 nodes are available: 1 Insufficient cpu.',
  ],
  [
    'host port taken',
    { hostPorts: [{ hostPort: 80 }] },
    [info('a', {}, [pod('web', { hostPorts: [{ hostPort: 80 }] })])],
    "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
  ],
];

test.each(failures)('%s', (_name, spec, nodes, message) => {
  const result = schedulePod(pod('p', spec), nodes);
  expect(result.nodeName).toBeUndefined();
  expect(result.nodeName === undefined && result.message).toBe(message);
  expect(result.nodeName === undefined && result.reason).toBe(nodes.length ? 'Unschedulable' : 'SchedulerError');
});

test('the only node that fits is taken, without scoring', () => {
  expect(schedulePod(pod('p'), [info('a', { unschedulable: true }), info('b')])).toEqual({ nodeName: 'b', feasibleNodes: 1, processedNodes: 2 });
});

test('the node with the most room left wins', () => {
  const busy = info('a', {}, [pod('x', { requests: { cpu: '3', memory: '6Gi' } })]);
  expect(schedulePod(pod('p', { requests: { cpu: '100m', memory: '100Mi' } }), [busy, info('b'), info('c', {}, [pod('y', { requests: { cpu: '1', memory: '1Gi' } })])]).nodeName).toBe('b');
});

test('equal scores are a random pick among the best', () => {
  const nodes = [info('a'), info('b'), info('c', {}, [pod('x', { requests: { cpu: '3' } })])];
  expect(schedulePod(pod('p'), nodes, { random: () => 0 }).nodeName).toBe('a');
  expect(schedulePod(pod('p'), nodes, { random: () => 0.99 }).nodeName).toBe('b');
});

// Upstream's numFeasibleNodesToFind with the default (adaptive) percentageOfNodesToScore, and with one set.
const feasibleToFind: Array<[number, number | undefined, number]> = [
  [1, undefined, 1],
  [99, undefined, 99], // below 100 nodes: all of them
  [100, undefined, 100], // 50% of 100 is 50, raised to the minimum of 100
  [500, undefined, 230], // 50 - 500/125 = 46%
  [1000, undefined, 420], // 42%
  [5000, undefined, 500], // 10%
  [10000, undefined, 500], // 50 - 80 is below the 5% floor
  [1000, 100, 1000],
  [1000, 30, 300],
  [1000, 5, 100], // 50 nodes, raised to 100
];
test.each(feasibleToFind)('%i nodes, percentageOfNodesToScore %p: filters stop after %i feasible nodes', (all, percentage, want) => {
  expect(numFeasibleNodesToFind(all, percentage)).toBe(want);
});

test('in a large cluster the filters stop at enough feasible nodes, and the next decision starts where this one stopped', () => {
  const infos = Array.from({ length: 500 }, (_, i) => info(`n${String(i).padStart(3, '0')}`));
  const first = schedulePod(pod('p'), infos, { startIndex: 0, random: () => 0 });
  expect(first).toMatchObject({ feasibleNodes: 230, processedNodes: 230 });
  // Every node scores the same: the tie goes to the first of the nodes looked at.
  expect(first.nodeName).toBe('n000');
  const second = schedulePod(pod('q'), infos, { startIndex: 230, random: () => 0 });
  expect(second.nodeName).toBe('n230');
  // Wrapping around the end.
  expect(schedulePod(pod('r'), infos, { startIndex: 460, random: () => 0.999 })).toMatchObject({ nodeName: 'n189', processedNodes: 230 });
  // Unschedulable nodes are looked at but do not count toward the feasible ones.
  const mixed = infos.map((x, i) => (i % 2 ? x : info(x.node.metadata.name ?? '', { unschedulable: true })));
  expect(schedulePod(pod('s'), mixed, { startIndex: 0 })).toMatchObject({ feasibleNodes: 230, processedNodes: 460 });
});
