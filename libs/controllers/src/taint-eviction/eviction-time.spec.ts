import type { Taint, Toleration } from '../core-v1/types';
import { evictionTime, noExecuteTaints } from './eviction-time';

const NOW = Date.parse('2025-06-01T12:00:10Z');
const ADDED = '2025-06-01T12:00:00Z';
const ADDED_MS = Date.parse(ADDED);
const unreachable: Taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: ADDED };
const notReady: Taint = { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute', timeAdded: '2025-06-01T12:00:05Z' };
const byHand: Taint = { key: 'maintenance', value: 'yes', effect: 'NoExecute' };
const tolerate = (key: string | undefined, seconds?: number | null, more: Partial<Toleration> = {}): Toleration => ({ key, operator: 'Exists', effect: 'NoExecute', ...(seconds !== undefined ? { tolerationSeconds: seconds } : {}), ...more });

describe('evictionTime', () => {
  const cases: Array<[string, Taint[], Toleration[] | undefined, number | undefined]> = [
    ['no taints: stays', [], undefined, undefined],
    ['no toleration: at once', [unreachable], undefined, NOW],
    ['tolerations of other taints do not help', [unreachable], [tolerate('node.kubernetes.io/not-ready')], NOW],
    ['a NoSchedule toleration does not cover NoExecute', [unreachable], [tolerate('node.kubernetes.io/unreachable', undefined, { effect: 'NoSchedule' })], NOW],
    ['tolerated forever: stays', [unreachable], [tolerate('node.kubernetes.io/unreachable')], undefined],
    ['an empty key with Exists tolerates everything', [unreachable, byHand], [tolerate(undefined)], undefined],
    ['tolerationSeconds count from timeAdded', [unreachable], [tolerate('node.kubernetes.io/unreachable', 300)], ADDED_MS + 300_000],
    ['a deadline already past is still that time (so: at once)', [unreachable], [tolerate('node.kubernetes.io/unreachable', 2)], ADDED_MS + 2_000],
    ['zero seconds: at once', [unreachable], [tolerate('node.kubernetes.io/unreachable', 0)], ADDED_MS],
    ['negative seconds: at once', [unreachable], [tolerate('node.kubernetes.io/unreachable', -5)], ADDED_MS],
    ['the earliest deadline of several taints', [unreachable, notReady], [tolerate('node.kubernetes.io/unreachable', 60), tolerate('node.kubernetes.io/not-ready', 30)], Date.parse('2025-06-01T12:00:35Z')],
    ['one taint forever, another for a while: the while', [unreachable, notReady], [tolerate('node.kubernetes.io/unreachable'), tolerate('node.kubernetes.io/not-ready', 30)], Date.parse('2025-06-01T12:00:35Z')],
    ['the first matching toleration counts, not the longest', [unreachable], [tolerate('node.kubernetes.io/unreachable', 10), tolerate(undefined)], ADDED_MS + 10_000],
    ['a taint without timeAdded counts from when it was noticed', [byHand], [tolerate('maintenance', 20)], NOW + 20_000],
    ['Equal needs the value', [byHand], [{ key: 'maintenance', operator: 'Equal', value: 'no', effect: 'NoExecute' }], NOW],
    ['Equal with the value', [byHand], [{ key: 'maintenance', value: 'yes', effect: 'NoExecute', tolerationSeconds: 5 }], NOW + 5_000],
  ];
  it.each(cases)('%s', (_name, taints, tolerations, want) => {
    expect(evictionTime(taints, tolerations, NOW)).toBe(want);
  });
});

it('noExecuteTaints keeps only NoExecute taints', () => {
  expect(noExecuteTaints([{ key: 'a', effect: 'NoSchedule' }, unreachable, { key: 'b', effect: 'PreferNoSchedule' }])).toEqual([unreachable]);
  expect(noExecuteTaints(undefined)).toEqual([]);
});
