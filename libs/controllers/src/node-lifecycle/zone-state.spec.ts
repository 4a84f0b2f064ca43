import type { Node, NodeCondition } from '../core-v1/types';
import { computeZoneState, evictionRateFor, planDisruption, zoneKey, type ZoneState } from './zone-state';
import { ZoneTainter } from './zone-tainter';

const ready = (status: string): NodeCondition => ({ type: 'Ready', status });
const many = (n: number, status: string) => Array.from({ length: n }, () => ready(status));

describe('computeZoneState', () => {
  const cases: Array<[string, Array<NodeCondition | undefined>, ZoneState, number]> = [
    ['all ready', many(3, 'True'), 'Normal', 0],
    ['none ready', [ready('Unknown'), ready('False'), undefined], 'FullDisruption', 3],
    ['one of two down is no disruption', [ready('True'), ready('Unknown')], 'Normal', 1],
    ['two not ready out of three: not more than two', [ready('True'), ...many(2, 'Unknown')], 'Normal', 2],
    ['three of five (60 %)', [...many(2, 'True'), ...many(3, 'Unknown')], 'PartialDisruption', 3],
    ['three of six (50 %)', [...many(3, 'True'), ...many(3, 'Unknown')], 'Normal', 3],
    ['never posted counts as not ready', [ready('True'), undefined, undefined, undefined], 'PartialDisruption', 3],
  ];
  it.each(cases)('%s', (_name, conditions, state, notReady) => {
    expect(computeZoneState(conditions, 0.55)).toEqual({ state, notReady });
  });
});

describe('planDisruption', () => {
  const m = (entries: Array<[string, ZoneState]>) => new Map(entries);
  const cases: Array<[string, Map<string, ZoneState>, Map<string, ZoneState>, string, Array<[string, ZoneState]> | null]> = [
    ['no zones at all', m([]), m([]), 'none', null],
    ['a first healthy zone', m([]), m([['a', 'Normal']]), 'zone-changes', [['a', 'Normal']]],
    ['unchanged', m([['a', 'Normal']]), m([['a', 'Normal']]), 'none', null],
    ['one zone of two goes down: only its rate changes', m([['a', 'Normal'], ['b', 'Normal']]), m([['a', 'FullDisruption'], ['b', 'Normal']]), 'zone-changes', [['a', 'FullDisruption']]],
    ['the only zone goes down: master disruption', m([['a', 'Normal']]), m([['a', 'FullDisruption']]), 'enter-full-disruption', null],
    ['a single node cluster starts with its node down', m([['a', 'Initial']]), m([['a', 'FullDisruption']]), 'enter-full-disruption', null],
    ['still all down', m([['a', 'FullDisruption'], ['b', 'FullDisruption']]), m([['a', 'FullDisruption'], ['b', 'FullDisruption']]), 'none', null],
    ['one zone is back', m([['a', 'FullDisruption'], ['b', 'FullDisruption']]), m([['a', 'Normal'], ['b', 'FullDisruption']]), 'exit-full-disruption', [['a', 'Normal'], ['b', 'FullDisruption']]],
    ['a zone with no nodes left does not count', m([['a', 'Normal'], ['gone', 'Normal']]), m([['a', 'FullDisruption']]), 'enter-full-disruption', null],
  ];
  it.each(cases)('%s', (_name, previous, next, kind, states) => {
    const plan = planDisruption(previous, next);
    expect(plan.kind).toBe(kind);
    if (states) expect([...(plan as { states: Map<string, ZoneState> }).states]).toEqual(states);
  });
});

describe('evictionRateFor', () => {
  const rates = { nodeEvictionRate: 0.1, secondaryNodeEvictionRate: 0.01, largeClusterSizeThreshold: 50 };
  const cases: Array<[ZoneState, number, number]> = [
    ['Normal', 10, 0.1],
    ['FullDisruption', 10, 0.1],
    ['PartialDisruption', 50, 0],
    ['PartialDisruption', 51, 0.01],
  ];
  it.each(cases)('%s with %d nodes: %d per second', (state, size, rate) => {
    expect(evictionRateFor(state, size, rates)).toBe(rate);
  });
});

describe('zoneKey', () => {
  const node = (labels?: Record<string, string>): Node => ({ metadata: { name: 'n', labels } });
  it.each([
    [undefined, ''],
    [{ 'topology.kubernetes.io/zone': 'z1' }, ':\x00:z1'],
    [{ 'topology.kubernetes.io/region': 'r', 'topology.kubernetes.io/zone': 'z1' }, 'r:\x00:z1'],
    [{ 'failure-domain.beta.kubernetes.io/region': 'old', 'failure-domain.beta.kubernetes.io/zone': 'z' }, 'old:\x00:z'],
  ])('%j -> %j', (labels, key) => expect(zoneKey(node(labels))).toBe(key));
});

describe('ZoneTainter', () => {
  it('taints in order, one per token, and remembers tainted nodes until they are forgotten', async () => {
    let now = 0;
    const tainter = new ZoneTainter(0.1, () => now);
    const tainted: string[] = [];
    const taint = async (name: string) => {
      tainted.push(name);
      return { done: true } as const;
    };
    expect(tainter.add('a', 'uid-a')).toBe(true);
    expect(tainter.add('b', 'uid-b')).toBe(true);
    expect(tainter.add('a', 'uid-a')).toBe(false);
    await tainter.taintDue(taint);
    expect(tainted).toEqual(['a']);
    now = 5_000;
    await tainter.taintDue(taint);
    expect(tainted).toEqual(['a']);
    now = 10_000;
    await tainter.taintDue(taint);
    expect(tainted).toEqual(['a', 'b']);
    // Tainted, so marking again does nothing; forgotten (ready again), it can be marked anew.
    expect(tainter.add('a', 'uid-a')).toBe(false);
    expect(tainter.remove('a')).toBe(true);
    expect(tainter.add('a', 'uid-a')).toBe(true);
  });

  it('retries a failed attempt after its wait, and a rate of 0 stops everything', async () => {
    let now = 0;
    const tainter = new ZoneTainter(1000, () => now);
    const attempts: string[] = [];
    tainter.add('a', '');
    await tainter.taintDue(async (name) => {
      attempts.push(`${name}@${now}`);
      return { done: false, retryAfterMs: 50 };
    });
    expect(tainter.waitingNames).toEqual(['a']);
    now = 60;
    tainter.setRate(0);
    await tainter.taintDue(async () => ({ done: true }));
    expect(tainter.waitingNames).toEqual(['a']);
    tainter.setRate(1000);
    now = 2_000;
    await tainter.taintDue(async (name) => {
      attempts.push(`${name}@${now}`);
      return { done: true };
    });
    expect(attempts).toEqual(['a@0', 'a@2000']);
    expect(tainter.waitingNames).toEqual([]);
  });
});
