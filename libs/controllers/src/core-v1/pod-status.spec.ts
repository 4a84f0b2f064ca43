import { withPodCondition } from './pod-status';
import type { PodCondition } from './types';

const NOW = new Date('2025-06-01T12:00:00Z');
const EARLIER = '2025-06-01T11:00:00Z';
const ready = (status: string, more: Partial<PodCondition> = {}): PodCondition => ({ type: 'Ready', status, lastProbeTime: null, lastTransitionTime: EARLIER, ...more });

describe('withPodCondition (UpdatePodCondition)', () => {
  const cases: Array<[string, PodCondition[] | undefined, Omit<PodCondition, 'lastTransitionTime'>, boolean, PodCondition]> = [
    ['a new condition transitions now', undefined, { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByTaintManager' }, true, { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByTaintManager', lastProbeTime: null, lastTransitionTime: '2025-06-01T12:00:00Z' }],
    ['a changed status transitions now', [ready('True')], { type: 'Ready', status: 'False' }, true, { type: 'Ready', status: 'False', lastProbeTime: null, lastTransitionTime: '2025-06-01T12:00:00Z' }],
    ['the same status keeps its transition time', [ready('False')], { type: 'Ready', status: 'False' }, false, ready('False')],
    ['a new reason is a change, not a transition', [ready('False')], { type: 'Ready', status: 'False', reason: 'NodeLost' }, true, ready('False', { reason: 'NodeLost' })],
  ];
  it.each(cases)('%s', (_name, conditions, condition, changed, want) => {
    const result = withPodCondition(conditions, condition, NOW);
    expect(result.changed).toBe(changed);
    expect(result.condition).toEqual(want);
    expect(result.conditions.filter((c) => c.type === condition.type)).toEqual([want]);
  });
});
