import type { Lease, Node, NodeCondition } from '../core-v1/types';
import { gracePeriodFor, heartbeatExpired, observedReady, observeNodeHealth, unknownConditions, type NodeHealth } from './node-health';

const T = Date.parse('2025-06-01T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const CREATED = iso(T - 600_000);
const GRACE = { nodeMonitorGracePeriodMs: 50_000, nodeStartupGracePeriodMs: 60_000 };

const ready = (status: string, heartbeat: number, transition = heartbeat): NodeCondition => ({ type: 'Ready', status, reason: 'CletReady', message: 'clet is posting ready status', lastHeartbeatTime: iso(heartbeat), lastTransitionTime: iso(transition) });
const node = (conditions?: NodeCondition[]): Node => ({ metadata: { name: 'n', creationTimestamp: CREATED }, status: conditions ? { conditions } : {} });
const lease = (renewed: number): Lease => ({ metadata: { name: 'n', namespace: 'kube-node-lease' }, spec: { renewTime: new Date(renewed).toISOString().replace('Z', '000Z') } });

describe('observeNodeHealth', () => {
  const seen: NodeHealth = { probeTimestamp: T - 30_000, readyTransitionTimestamp: T - 90_000, ready: ready('True', T - 40_000, T - 100_000), leaseRenewTime: T - 35_000 };
  const cases: Array<[string, NodeHealth | undefined, Node, Lease | undefined, Partial<NodeHealth>]> = [
    ['first sight of a Ready node: probed now', undefined, node([ready('True', T - 40_000)]), undefined, { probeTimestamp: T, readyTransitionTimestamp: T }],
    ['first sight of a node that never posted Ready: counted from its creation', undefined, node(), undefined, { probeTimestamp: T - 600_000, readyTransitionTimestamp: T - 600_000 }],
    ['nothing new: the last probe stands', seen, node([seen.ready!]), lease(T - 35_000), { probeTimestamp: T - 30_000, readyTransitionTimestamp: T - 90_000 }],
    ['a new heartbeat, same transition: probed now, transition kept', seen, node([ready('True', T - 5_000, T - 100_000)]), lease(T - 35_000), { probeTimestamp: T, readyTransitionTimestamp: T - 90_000 }],
    ['a new heartbeat with a transition: both now', seen, node([ready('False', T - 5_000, T - 5_000)]), lease(T - 35_000), { probeTimestamp: T, readyTransitionTimestamp: T }],
    ['a renewed lease alone is a heartbeat', seen, node([seen.ready!]), lease(T - 1_000), { probeTimestamp: T, readyTransitionTimestamp: T - 90_000, leaseRenewTime: T - 1_000 }],
    ['a lease older than the one seen is not', seen, node([seen.ready!]), lease(T - 60_000), { probeTimestamp: T - 30_000, leaseRenewTime: T - 35_000 }],
    ['the first lease seen counts', { ...seen, leaseRenewTime: undefined }, node([seen.ready!]), lease(T - 60_000), { probeTimestamp: T, leaseRenewTime: T - 60_000 }],
  ];
  it.each(cases)('%s', (_name, saved, n, l, want) => {
    expect(observeNodeHealth(saved, n, l, T)).toMatchObject(want);
  });
});

// The whole judgement for a node whose agent posted Ready `heartbeatAgo` before now and renewed its lease
// `leaseAgo` before now (each seen by the controller when it happened), with a 50 s grace.
function conditionsAfter(readyStatus: string | undefined, heartbeatAgo: number, leaseAgo: number | undefined): NodeCondition[] {
  const posted = readyStatus ? node([ready(readyStatus, T - heartbeatAgo)]) : node();
  let health = observeNodeHealth(undefined, posted, undefined, T - heartbeatAgo);
  if (leaseAgo !== undefined) health = observeNodeHealth(health, posted, lease(T - leaseAgo), T - leaseAgo);
  health = observeNodeHealth(health, posted, leaseAgo === undefined ? undefined : lease(T - leaseAgo), T);
  return heartbeatExpired(health, gracePeriodFor(posted, GRACE), T) ? unknownConditions(posted, new Date(T)) : (posted.status?.conditions ?? []);
}

describe('conditions for a given heartbeat and lease age', () => {
  const cases: Array<[string, string | undefined, number, number | undefined, { status: string; reason?: string; message?: string } | undefined]> = [
    ['fresh heartbeat', 'True', 10_000, undefined, { status: 'True', reason: 'CletReady' }],
    ['old heartbeat, fresh lease: still Ready', 'True', 120_000, 10_000, { status: 'True', reason: 'CletReady' }],
    ['heartbeat just within the grace', 'True', 50_000, undefined, { status: 'True' }],
    ['both older than the grace', 'True', 120_000, 60_000, { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' }],
    ['no lease and an old heartbeat', 'True', 51_000, undefined, { status: 'Unknown', reason: 'NodeStatusUnknown' }],
    ['a not-ready node that went silent', 'False', 120_000, 70_000, { status: 'Unknown', reason: 'NodeStatusUnknown' }],
    ['never posted Ready, created 10 min ago, no lease', undefined, 600_000, undefined, { status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.' }],
    ['never posted Ready but renews its lease: left alone', undefined, 600_000, 5_000, undefined],
  ];
  it.each(cases)('%s', (_name, status, heartbeatAgo, leaseAgo, want) => {
    const readyAfter = conditionsAfter(status, heartbeatAgo, leaseAgo).find((c) => c.type === 'Ready');
    if (want) expect(readyAfter).toMatchObject(want);
    else expect(readyAfter).toBeUndefined();
  });
});

describe('unknownConditions', () => {
  it('sets the agent conditions Unknown, keeps heartbeats, adds the missing ones, and leaves NetworkUnavailable', () => {
    const n = node([
      ready('True', T - 60_000, T - 3_600_000),
      { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: iso(T - 60_000), lastTransitionTime: iso(T - 3_600_000), reason: 'CletHasSufficientMemory' },
      { type: 'NetworkUnavailable', status: 'False', lastHeartbeatTime: iso(T - 60_000), lastTransitionTime: iso(T - 3_600_000), reason: 'RouteCreated' },
      { type: 'DiskPressure', status: 'Unknown', lastHeartbeatTime: iso(T - 90_000), lastTransitionTime: iso(T - 80_000), reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' },
    ]);
    expect(unknownConditions(n, new Date(T))).toEqual([
      { ...ready('True', T - 60_000, T - 3_600_000), status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: iso(T) },
      { type: 'MemoryPressure', status: 'Unknown', lastHeartbeatTime: iso(T - 60_000), lastTransitionTime: iso(T), reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' },
      n.status!.conditions![2],
      n.status!.conditions![3],
      { type: 'PIDPressure', status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.', lastHeartbeatTime: CREATED, lastTransitionTime: iso(T) },
    ]);
  });

  it('is a no-op the second time', () => {
    const once = unknownConditions(node([ready('True', T - 60_000)]), new Date(T));
    expect(unknownConditions(node(once), new Date(T + 5_000))).toEqual(once);
  });
});

describe('gracePeriodFor and observedReady', () => {
  it('gives the startup grace and a stand-in Unknown Ready to a node that never posted one', () => {
    expect(gracePeriodFor(node(), GRACE)).toBe(60_000);
    expect(gracePeriodFor(node([ready('False', T)]), GRACE)).toBe(50_000);
    expect(observedReady(node())).toEqual({ type: 'Ready', status: 'Unknown', lastHeartbeatTime: CREATED, lastTransitionTime: CREATED });
  });
});
