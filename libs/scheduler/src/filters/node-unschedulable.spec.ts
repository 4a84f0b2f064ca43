import { node, pod } from '../../test/fixtures';
import { nodeInfoFor } from '../node-info';
import type { Toleration } from '../types';
import { NODE_UNSCHEDULABLE_REASON, nodeUnschedulable } from './node-unschedulable';

const cases: Array<[string, boolean, Toleration[] | undefined, string | null]> = [
  ['a schedulable node takes any pod', false, undefined, null],
  ['a cordoned node refuses a pod without tolerations', true, undefined, NODE_UNSCHEDULABLE_REASON],
  ['... but takes one tolerating the unschedulable taint', true, [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }], null],
  ['... or one tolerating everything', true, [{ operator: 'Exists' }], null],
  ['a toleration of the key with another effect does not do', true, [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoExecute' }], NODE_UNSCHEDULABLE_REASON],
];

test.each(cases)('%s', (_name, unschedulable, tolerations, want) => {
  expect(nodeUnschedulable(pod('p', { tolerations }), nodeInfoFor(node('n', { unschedulable })))).toBe(want);
});

test('the reason is upstream 1.33 text', () => {
  expect(NODE_UNSCHEDULABLE_REASON).toBe('node(s) were unschedulable');
});
