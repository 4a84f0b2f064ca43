// kubectl's pod and node columns from objects in each state, as its printers compute them.
import type { KubeObject } from '@cl/apimachinery';
import { podSummary } from './pod-printer';
import { nodeRoles, nodeStatus } from './node-printer';

const NOW = Date.parse('2026-01-01T01:00:00Z');
const pod = (spec: object, status: object, meta: object = {}): KubeObject => ({ metadata: { name: 'p', ...meta }, spec, status });
const one = { containers: [{ name: 'c' }] };

test.each([
  ['a new pod', pod(one, { phase: 'Pending' }), { ready: '0/1', status: 'Pending', restarts: '0' }],
  ['creating', pod(one, { phase: 'Pending', containerStatuses: [{ name: 'c', state: { waiting: { reason: 'ContainerCreating' } } }] }), { ready: '0/1', status: 'ContainerCreating', restarts: '0' }],
  [
    'running, restarted 5 minutes ago',
    pod(one, { phase: 'Running', containerStatuses: [{ name: 'c', ready: true, restartCount: 3, state: { running: {} }, lastState: { terminated: { exitCode: 1, finishedAt: '2026-01-01T00:55:00Z' } } }] }),
    { ready: '1/1', status: 'Running', restarts: '3 (5m ago)' },
  ],
  ['crash looping', pod(one, { phase: 'Running', containerStatuses: [{ name: 'c', restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } }] }), { ready: '0/1', status: 'CrashLoopBackOff', restarts: '4' }],
  ['completed', pod(one, { phase: 'Succeeded', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 0, reason: 'Completed' } } }] }), { ready: '0/1', status: 'Completed', restarts: '0' }],
  ['exited without a reason', pod(one, { phase: 'Failed', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 2 } } }] }), { ready: '0/1', status: 'ExitCode:2', restarts: '0' }],
  [
    'first of two init containers running',
    pod({ ...one, initContainers: [{ name: 'i1' }, { name: 'i2' }] }, { phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { running: {} } }, { name: 'i2', state: { waiting: { reason: 'PodInitializing' } } }] }),
    { ready: '0/1', status: 'Init:0/2', restarts: '0' },
  ],
  [
    'an init container crash looping',
    pod({ ...one, initContainers: [{ name: 'i1' }] }, { phase: 'Pending', initContainerStatuses: [{ name: 'i1', restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } }] }),
    { ready: '0/1', status: 'Init:CrashLoopBackOff', restarts: '2' },
  ],
  ['being deleted', pod(one, { phase: 'Running' }, { deletionTimestamp: '2026-01-01T01:00:30Z' }), { ready: '0/1', status: 'Terminating', restarts: '0' }],
  ['evicted', pod(one, { phase: 'Failed', reason: 'Evicted' }), { ready: '0/1', status: 'Evicted', restarts: '0' }],
])('pod %s', (_name, p, expected) => {
  expect(podSummary(p, NOW)).toEqual(expected);
});

const node = (ready: string | null, unschedulable = false, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { name: 'n', labels },
  spec: { unschedulable },
  status: { conditions: ready ? [{ type: 'Ready', status: ready }] : [] },
});

test.each([
  ['ready', node('True'), 'Ready', '<none>'],
  ['not ready', node('False'), 'NotReady', '<none>'],
  ['unknown readiness', node('Unknown'), 'NotReady', '<none>'],
  ['no conditions yet', node(null), 'Unknown', '<none>'],
  ['cordoned', node('True', true), 'Ready,SchedulingDisabled', '<none>'],
  ['with roles', node('True', false, { 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'edge' }), 'Ready', 'control-plane,edge,worker'],
])('node %s', (_name, n, status, roles) => {
  expect(nodeStatus(n)).toBe(status);
  expect(nodeRoles(n)).toBe(roles);
});
