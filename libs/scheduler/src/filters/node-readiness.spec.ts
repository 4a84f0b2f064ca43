import { node, pod } from '../../test/fixtures';
import { nodeInfoFor } from '../node-info';
import type { NodeCondition, Toleration } from '../types';
import { conditionTaints, nodeReadiness } from './node-readiness';

const ready = (status: string): NodeCondition => ({ type: 'Ready', status });
// What DefaultTolerationSeconds gives every pod: NoExecute only, so NoSchedule condition taints still apply.
const admitted: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

const cases: Array<[string, NodeCondition[], Toleration[] | undefined, string | null]> = [
  ['Ready', [ready('True')], undefined, null],
  ['not Ready', [ready('False')], undefined, 'node(s) had untolerated taint {node.kubernetes.io/not-ready: }'],
  ['Ready unknown', [ready('Unknown')], undefined, 'node(s) had untolerated taint {node.kubernetes.io/unreachable: }'],
  ['never reported (TaintNodesByCondition tainted it on create)', [], undefined, 'node(s) had untolerated taint {node.kubernetes.io/not-ready: }'],
  ['Ready under memory pressure', [ready('True'), { type: 'MemoryPressure', status: 'True' }], undefined, 'node(s) had untolerated taint {node.kubernetes.io/memory-pressure: }'],
  ['Ready, pressure conditions False', [ready('True'), { type: 'DiskPressure', status: 'False' }, { type: 'PIDPressure', status: 'False' }], undefined, null],
  ['the default NoExecute tolerations do not cover NoSchedule', [ready('False')], admitted, 'node(s) had untolerated taint {node.kubernetes.io/not-ready: }'],
  ['a DaemonSet-style toleration does', [ready('False')], [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }], null],
];

test.each(cases)('%s', (_name, conditions, tolerations, want) => {
  expect(nodeReadiness(pod('p', { tolerations }), nodeInfoFor(node('n', { conditions })))).toBe(want);
});

test('condition taints come in the node lifecycle controller\'s order', () => {
  const n = node('n', { conditions: [{ type: 'PIDPressure', status: 'True' }, { type: 'NetworkUnavailable', status: 'True' }, ready('False'), { type: 'DiskPressure', status: 'True' }] });
  expect(conditionTaints(n).map((t) => `${t.key}:${t.effect}`)).toEqual([
    'node.kubernetes.io/not-ready:NoSchedule',
    'node.kubernetes.io/disk-pressure:NoSchedule',
    'node.kubernetes.io/network-unavailable:NoSchedule',
    'node.kubernetes.io/pid-pressure:NoSchedule',
  ]);
});
