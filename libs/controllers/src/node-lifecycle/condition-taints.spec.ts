import type { Node, NodeCondition, Taint } from '../core-v1/types';
import { applyTaintChanges, noExecuteTaintFor, noScheduleTaintChanges, noScheduleTaintsFor } from './condition-taints';

const c = (type: string, status: string): NodeCondition => ({ type, status });
const ns = (key: string, value?: string): Taint => ({ key: `node.kubernetes.io/${key}`, effect: 'NoSchedule', ...(value ? { value } : {}) });
const ne = (key: string, timeAdded?: string): Taint => ({ key: `node.kubernetes.io/${key}`, effect: 'NoExecute', ...(timeAdded ? { timeAdded } : {}) });
const node = (conditions: NodeCondition[] | undefined, taints?: Taint[], unschedulable?: boolean): Node => ({ metadata: { name: 'n' }, spec: { taints, unschedulable }, status: conditions ? { conditions } : {} });
const keys = (taints: Taint[]) => taints.map((t) => `${t.key}:${t.effect}`);

describe('noScheduleTaintsFor', () => {
  const cases: Array<[string, NodeCondition[] | undefined, boolean, string[]]> = [
    ['Ready', [c('Ready', 'True')], false, []],
    ['not ready', [c('Ready', 'False')], false, ['node.kubernetes.io/not-ready:NoSchedule']],
    ['unreachable', [c('Ready', 'Unknown'), c('MemoryPressure', 'Unknown')], false, ['node.kubernetes.io/unreachable:NoSchedule']],
    [
      'pressures, in the order of the conditions',
      [c('DiskPressure', 'True'), c('Ready', 'True'), c('PIDPressure', 'True'), c('MemoryPressure', 'True'), c('NetworkUnavailable', 'True')],
      false,
      ['node.kubernetes.io/disk-pressure:NoSchedule', 'node.kubernetes.io/pid-pressure:NoSchedule', 'node.kubernetes.io/memory-pressure:NoSchedule', 'node.kubernetes.io/network-unavailable:NoSchedule'],
    ],
    ['cordoned', [c('Ready', 'True')], true, ['node.kubernetes.io/unschedulable:NoSchedule']],
    ['no conditions posted yet', undefined, false, []],
  ];
  it.each(cases)('%s', (_name, conditions, unschedulable, want) => {
    expect(keys(noScheduleTaintsFor(node(conditions, [], unschedulable)))).toEqual(want);
  });
});

describe('noScheduleTaintChanges', () => {
  const cases: Array<[string, Node, string[], string[]]> = [
    ['a Ready node loses the not-ready taint TaintNodesByCondition gave it', node([c('Ready', 'True')], [ns('not-ready')]), [], ['node.kubernetes.io/not-ready:NoSchedule']],
    ['a node with no conditions loses it too (upstream)', node(undefined, [ns('not-ready')]), [], ['node.kubernetes.io/not-ready:NoSchedule']],
    ['not-ready becomes unreachable', node([c('Ready', 'Unknown')], [ns('not-ready')]), ['node.kubernetes.io/unreachable:NoSchedule'], ['node.kubernetes.io/not-ready:NoSchedule']],
    ['already right', node([c('Ready', 'False')], [ns('not-ready')]), [], []],
    ['NoExecute and foreign taints are not ours', node([c('Ready', 'True')], [ne('not-ready'), { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]), [], []],
    ['uncordoned', node([c('Ready', 'True')], [ns('unschedulable')], false), [], ['node.kubernetes.io/unschedulable:NoSchedule']],
  ];
  it.each(cases)('%s', (_name, n, add, remove) => {
    const changes = noScheduleTaintChanges(n);
    expect(keys(changes.add)).toEqual(add);
    expect(keys(changes.remove)).toEqual(remove);
  });
});

describe('noExecuteTaintFor', () => {
  const cases: Array<[string, string[], string[]]> = [
    ['False', ['node.kubernetes.io/not-ready:NoExecute'], ['node.kubernetes.io/unreachable:NoExecute']],
    ['Unknown', ['node.kubernetes.io/unreachable:NoExecute'], ['node.kubernetes.io/not-ready:NoExecute']],
    ['True', [], ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/not-ready:NoExecute']],
  ];
  it.each(cases)('Ready=%s', (status, add, remove) => {
    const changes = noExecuteTaintFor(status);
    expect(keys(changes.add)).toEqual(add);
    expect(keys(changes.remove)).toEqual(remove);
  });
});

describe('applyTaintChanges', () => {
  const AT = '2025-06-01T12:00:00Z';
  const OLD = '2025-06-01T11:00:00Z';
  const cases: Array<[string, Taint[] | undefined, { add: Taint[]; remove: Taint[] }, Taint[] | undefined]> = [
    ['adds with timeAdded', undefined, { add: [ne('unreachable')], remove: [] }, [ne('unreachable', AT)]],
    ['swaps', [ns('unreachable'), ne('not-ready', OLD)], noExecuteTaintFor('Unknown'), [ns('unreachable'), ne('unreachable', AT)]],
    ['keeps a taint already there, and its timeAdded', [ne('unreachable', OLD)], noExecuteTaintFor('Unknown'), undefined],
    ['replaces one whose value differs', [ns('not-ready', 'x')], { add: [ns('not-ready')], remove: [] }, [{ ...ns('not-ready'), timeAdded: AT }]],
    ['removes', [{ key: 'dedicated', effect: 'NoSchedule' }, ne('unreachable', OLD)], noExecuteTaintFor('True'), [{ key: 'dedicated', effect: 'NoSchedule' }]],
    ['nothing to remove', [{ key: 'dedicated', effect: 'NoSchedule' }], noExecuteTaintFor('True'), undefined],
  ];
  it.each(cases)('%s', (_name, taints, changes, want) => {
    expect(applyTaintChanges(taints, changes, AT)).toEqual(want);
  });
});
