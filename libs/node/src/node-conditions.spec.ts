import { nodeConditions, OWN_CONDITION_TYPES, type NodeHealth } from './node-conditions';
import type { NodeCondition } from './types';

const healthy: NodeHealth = { notReady: [], memoryPressure: false, diskPressure: false, pidPressure: false };
const T0 = '2025-01-01T00:00:00Z';
const T1 = '2025-01-01T00:00:10Z';

/** type status reason message, one string a condition, in the order they come. */
const summary = (conditions: NodeCondition[]) => conditions.map((c) => `${c.type} ${c.status} ${c.reason} ${c.message}`);

test('the four conditions come in upstream order', () => {
  expect(OWN_CONDITION_TYPES).toEqual(['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready']);
  expect(nodeConditions(healthy, undefined, T0).conditions.map((c) => c.type)).toEqual(OWN_CONDITION_TYPES);
});

test.each<[string, Partial<NodeHealth>, string[]]>([
  [
    'a healthy node',
    {},
    [
      'MemoryPressure False CletHasSufficientMemory clet has sufficient memory available',
      'DiskPressure False CletHasNoDiskPressure clet has no disk pressure',
      'PIDPressure False CletHasSufficientPID clet has sufficient PID available',
      'Ready True CletReady clet is posting ready status',
    ],
  ],
  [
    'every pressure',
    { memoryPressure: true, diskPressure: true, pidPressure: true },
    [
      'MemoryPressure True CletHasInsufficientMemory clet has insufficient memory available',
      'DiskPressure True CletHasDiskPressure clet has disk pressure',
      'PIDPressure True CletHasInsufficientPID clet has insufficient PID available',
      'Ready True CletReady clet is posting ready status',
    ],
  ],
  [
    'one reason not to be ready: the message is that reason',
    { notReady: ['container runtime is down'] },
    [
      'MemoryPressure False CletHasSufficientMemory clet has sufficient memory available',
      'DiskPressure False CletHasNoDiskPressure clet has no disk pressure',
      'PIDPressure False CletHasSufficientPID clet has sufficient PID available',
      'Ready False CletNotReady container runtime is down',
    ],
  ],
])('%s', (_name, health, want) => {
  expect(summary(nodeConditions({ ...healthy, ...health }, undefined, T0).conditions)).toEqual(want);
});

test('every condition carries now as its heartbeat', () => {
  const previous = nodeConditions(healthy, undefined, T0).conditions;
  expect(nodeConditions(healthy, previous, T1).conditions.map((c) => c.lastHeartbeatTime)).toEqual([T1, T1, T1, T1]);
});

test('the first report transitions every condition and names the event of each', () => {
  const { conditions, changes } = nodeConditions(healthy, undefined, T0);
  expect(conditions.map((c) => c.lastTransitionTime)).toEqual([T0, T0, T0, T0]);
  expect(changes).toEqual([
    { type: 'MemoryPressure', event: 'NodeHasSufficientMemory' },
    { type: 'DiskPressure', event: 'NodeHasNoDiskPressure' },
    { type: 'PIDPressure', event: 'NodeHasSufficientPID' },
    { type: 'Ready', event: 'NodeReady' },
  ]);
});

test('an unchanged status keeps its lastTransitionTime and makes no event', () => {
  const previous = nodeConditions(healthy, undefined, T0).conditions;
  const { conditions, changes } = nodeConditions(healthy, previous, T1);
  expect(conditions.map((c) => c.lastTransitionTime)).toEqual([T0, T0, T0, T0]);
  expect(changes).toEqual([]);
});

test.each<[string, Partial<NodeHealth>, string, string]>([
  ['not ready', { notReady: ['PLEG is not healthy'] }, 'Ready', 'NodeNotReady'],
  ['memory pressure', { memoryPressure: true }, 'MemoryPressure', 'NodeHasInsufficientMemory'],
  ['disk pressure', { diskPressure: true }, 'DiskPressure', 'NodeHasDiskPressure'],
  ['PID pressure', { pidPressure: true }, 'PIDPressure', 'NodeHasInsufficientPID'],
])('a change to %s moves only that lastTransitionTime and names its event', (_name, health, type, event) => {
  const previous = nodeConditions(healthy, undefined, T0).conditions;
  const { conditions, changes } = nodeConditions({ ...healthy, ...health }, previous, T1);
  expect(Object.fromEntries(conditions.map((c) => [c.type, c.lastTransitionTime]))).toEqual({ MemoryPressure: T0, DiskPressure: T0, PIDPressure: T0, Ready: T0, [type]: T1 });
  expect(changes).toEqual([{ type, event }]);
});

test.each<[string, Partial<NodeHealth>, string]>([
  ['ready again', {}, 'NodeReady'],
  ['still not ready, for another reason: no transition', { notReady: ['container runtime is down'] }, ''],
])('from not ready: %s', (_name, health, event) => {
  const previous = nodeConditions({ ...healthy, notReady: ['PLEG is not healthy'] }, undefined, T0).conditions;
  const { conditions, changes } = nodeConditions({ ...healthy, ...health }, previous, T1);
  const ready = conditions.find((c) => c.type === 'Ready')!;
  expect(ready.lastTransitionTime).toBe(event ? T1 : T0);
  expect(changes.map((c) => c.event)).toEqual(event ? [event] : []);
});

test('a status the node lifecycle controller set (Unknown, after missed heartbeats) is a transition', () => {
  const previous: NodeCondition[] = OWN_CONDITION_TYPES.map((type) => ({ type, status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastHeartbeatTime: T0, lastTransitionTime: T0 }));
  const { conditions, changes } = nodeConditions(healthy, previous, T1);
  expect(conditions.map((c) => [c.status, c.lastTransitionTime])).toEqual([['False', T1], ['False', T1], ['False', T1], ['True', T1]]);
  expect(changes.map((c) => c.event)).toEqual(['NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID', 'NodeReady']);
});

test("others' conditions in the previous status are not the agent's to report", () => {
  const network: NodeCondition = { type: 'NetworkUnavailable', status: 'False', reason: 'RouteCreated', message: 'routes created', lastHeartbeatTime: T0, lastTransitionTime: T0 };
  expect(nodeConditions(healthy, [network], T1).conditions.map((c) => c.type)).toEqual(OWN_CONDITION_TYPES);
});

describe("the Ready message names the reasons not to be ready as upstream's aggregate error does", () => {
  test.each<[string, string[], string]>([
    ['one reason: the reason as it is', ['container runtime is down'], 'container runtime is down'],
    ['one reason twice: once, as it is', ['PLEG is not healthy', 'PLEG is not healthy'], 'PLEG is not healthy'],
    ['two reasons: in brackets', ['container runtime is down', 'network plugin not ready'], '[container runtime is down, network plugin not ready]'],
    ['a repeated reason among others: each once, first seen first', ['a', 'b', 'a', 'c', 'b'], '[a, b, c]'],
  ])('%s', (_name, notReady, message) => {
    const ready = nodeConditions({ ...healthy, notReady }, undefined, T0).conditions.find((c) => c.type === 'Ready')!;
    expect(ready).toMatchObject({ status: 'False', reason: 'CletNotReady', message });
  });
});
