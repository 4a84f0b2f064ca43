import { node, pod } from '../../test/fixtures';
import { nodeInfoFor } from '../node-info';
import type { Taint, Toleration } from '../types';
import { taintToleration } from './taint-toleration';

const gpu: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };

const cases: Array<[string, Taint[], Toleration[] | undefined, string | null]> = [
  ['no taints', [], undefined, null],
  ['an untolerated NoSchedule taint', [gpu], undefined, 'node(s) had untolerated taint {dedicated: gpu}'],
  ['Equal with the value', [gpu], [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }], null],
  ['an empty operator means Equal', [gpu], [{ key: 'dedicated', value: 'gpu' }], null],
  ['Equal with another value', [gpu], [{ key: 'dedicated', operator: 'Equal', value: 'cpu', effect: 'NoSchedule' }], 'node(s) had untolerated taint {dedicated: gpu}'],
  ['Exists for the key, any value and effect', [gpu], [{ key: 'dedicated', operator: 'Exists' }], null],
  ['Exists without a key tolerates everything', [gpu], [{ operator: 'Exists' }], null],
  ['a toleration for another effect', [gpu], [{ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }], 'node(s) had untolerated taint {dedicated: gpu}'],
  ['PreferNoSchedule only steers scoring', [{ key: 'a', value: 'b', effect: 'PreferNoSchedule' }], undefined, null],
  ['NoExecute keeps pods off too', [{ key: 'a', value: 'b', effect: 'NoExecute' }], undefined, 'node(s) had untolerated taint {a: b}'],
  ['the first untolerated taint in the node\'s order is named', [gpu, { key: 'zone', value: 'x', effect: 'NoSchedule' }], [{ key: 'dedicated', operator: 'Exists' }], 'node(s) had untolerated taint {zone: x}'],
  ['a taint without a value', [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }], undefined, 'node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }'],
  ['an unknown operator tolerates nothing', [gpu], [{ key: 'dedicated', operator: 'Gt', value: 'gpu' }], 'node(s) had untolerated taint {dedicated: gpu}'],
  // Judged from the conditions by the readiness filter instead: a Ready node's stale not-ready taint is no obstacle.
  // Readiness is a taint like any other: node lifecycle keeps it from the conditions.
  ['the not-ready taint keeps pods off', [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }], undefined, 'node(s) had untolerated taint {node.kubernetes.io/not-ready: }'],
  ['a pod tolerating not-ready (a DaemonSet\'s) passes', [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }], [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }], null],
];

test.each(cases)('%s', (_name, taints, tolerations, want) => {
  expect(taintToleration(pod('p', { tolerations }), nodeInfoFor(node('n', { taints })))).toBe(want);
});
