import type { Node, Pod } from '../core-v1/types';
import { isTerminated, missingNodes, terminatedPodsToDelete, terminatingOnOutOfServiceNodes, unscheduledTerminating } from './pod-gc-decisions';

interface PodFacts {
  phase?: string;
  reason?: string;
  created?: string;
  node?: string;
  deleting?: boolean;
}

const pod = (name: string, f: PodFacts = {}): Pod => ({
  metadata: { name, namespace: 'default', creationTimestamp: f.created ?? '2025-06-01T12:00:00Z', deletionTimestamp: f.deleting ? '2025-06-01T12:30:00Z' : undefined },
  spec: { nodeName: f.node },
  status: { phase: f.phase ?? 'Running', reason: f.reason },
});
const names = (pods: Pod[]) => pods.map((p) => p.metadata.name);
const at = (minute: number) => `2025-06-01T12:${String(minute).padStart(2, '0')}:00Z`;

describe('isTerminated', () => {
  it.each([
    ['Pending', false],
    ['Running', false],
    ['Unknown', false],
    ['Succeeded', true],
    ['Failed', true],
    // Upstream counts a pod with no phase at all as terminated; the API server always sets one.
    ['', true],
  ])('%j: %s', (phase, want) => expect(isTerminated({ metadata: {}, status: { phase } })).toBe(want));
});

describe('terminatedPodsToDelete', () => {
  const cases: Array<[string, Pod[], number, string[]]> = [
    ['under the threshold', [pod('a', { phase: 'Succeeded' }), pod('b', { phase: 'Failed' })], 2, []],
    ['running pods never count', [pod('a'), pod('b'), pod('c', { phase: 'Succeeded' })], 1, []],
    [
      'the oldest beyond the threshold',
      [pod('new', { phase: 'Succeeded', created: at(30) }), pod('old', { phase: 'Failed', created: at(10) }), pod('mid', { phase: 'Succeeded', created: at(20) })],
      1,
      ['old', 'mid'],
    ],
    [
      'evicted pods go first, whatever their age',
      [pod('old', { phase: 'Succeeded', created: at(1) }), pod('evicted', { phase: 'Failed', reason: 'Evicted', created: at(50) }), pod('mid', { phase: 'Failed', created: at(20) })],
      1,
      ['evicted', 'old'],
    ],
    ['names break ties of age', [pod('b', { phase: 'Succeeded' }), pod('c', { phase: 'Succeeded' }), pod('a', { phase: 'Succeeded' })], 1, ['a', 'b']],
    ['a threshold of 0 keeps everything', [pod('a', { phase: 'Succeeded' })], 0, []],
  ];
  it.each(cases)('%s', (_name, pods, threshold, want) => {
    expect(names(terminatedPodsToDelete(pods, threshold))).toEqual(want);
  });
});

describe('terminatingOnOutOfServiceNodes', () => {
  const node = (name: string, ready: string, outOfService: boolean): Node => ({
    metadata: { name },
    spec: { taints: outOfService ? [{ key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }] : [] },
    status: { conditions: [{ type: 'Ready', status: ready }] },
  });
  const nodes = new Map([
    ['down-oos', node('down-oos', 'Unknown', true)],
    ['down', node('down', 'False', false)],
    ['up-oos', node('up-oos', 'True', true)],
  ]);
  const cases: Array<[string, Pod[], string[]]> = [
    ['terminating on a not-ready out-of-service node', [pod('p', { node: 'down-oos', deleting: true })], ['p']],
    ['not terminating', [pod('p', { node: 'down-oos' })], []],
    ['the node is merely down', [pod('p', { node: 'down', deleting: true })], []],
    ['the node is ready', [pod('p', { node: 'up-oos', deleting: true })], []],
    ['the node is unknown to the informer', [pod('p', { node: 'elsewhere', deleting: true })], []],
    ['in eviction-then-age order', [pod('young', { node: 'down-oos', deleting: true, created: at(40) }), pod('old', { node: 'down-oos', deleting: true, created: at(5) })], ['old', 'young']],
  ];
  it.each(cases)('%s', (_name, pods, want) => {
    expect(names(terminatingOnOutOfServiceNodes(pods, nodes))).toEqual(want);
  });
});

describe('orphans and unscheduled terminating pods', () => {
  it('names the nodes pods point at that are missing', () => {
    const pods = [pod('a', { node: 'here' }), pod('b', { node: 'gone' }), pod('c'), pod('d', { node: 'gone' })];
    expect([...missingNodes(pods, new Set(['here']))]).toEqual(['gone']);
  });

  it('picks terminating pods with no node', () => {
    expect(names(unscheduledTerminating([pod('a', { deleting: true }), pod('b', { deleting: true, node: 'n' }), pod('c')]))).toEqual(['a']);
  });
});
