// Readiness gates: what Ready says given ContainersReady and the gates' conditions, and when a status the API
// server holds calls for a sync (upstream GeneratePodReadyCondition / NeedToReconcilePodReadiness).
import { readinessNeedsSync, readyFromGates } from './readiness-gates';
import type { PodCondition } from './types';

const c = (type: string, status: string, message?: string): PodCondition => ({ type, status, ...(message ? { message } : {}) });
const gated = (conditions: PodCondition[], gates = ['example.com/lb', 'example.com/db']) => ({
  spec: { readinessGates: gates.map((conditionType) => ({ conditionType })) },
  status: { conditions },
});
const READY = { status: 'True' };
const NOT_READY = { status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [c]' };

test.each<[string, PodCondition[], { status: string; reason?: string; message?: string }, object]>([
  ['containers not ready: their reason, whatever the gates', [c('example.com/lb', 'True'), c('example.com/db', 'True')], NOT_READY, NOT_READY],
  ['every gate True', [c('example.com/lb', 'True'), c('example.com/db', 'True')], READY, { status: 'True' }],
  ['a gate without its condition', [c('example.com/lb', 'True')], READY,
    { status: 'False', reason: 'ReadinessGatesNotReady', message: 'corresponding condition of pod readiness gate "example.com/db" does not exist.' }],
  ['both held, in the order of the spec', [c('example.com/lb', 'False')], READY, {
    status: 'False', reason: 'ReadinessGatesNotReady',
    message: 'the status of pod readiness gate "example.com/lb" is not "True", but False, corresponding condition of pod readiness gate "example.com/db" does not exist.',
  }],
])('%s', (_what, conditions, containersReady, want) => {
  expect(readyFromGates(gated(conditions), containersReady)).toEqual(want);
});

test('no gates: Ready is ContainersReady', () => {
  expect(readyFromGates({ spec: {}, status: { conditions: [] } }, READY)).toEqual({ status: 'True' });
});

test.each<[string, PodCondition[], boolean]>([
  ['a gate turned True while Ready says it is missing', [c('ContainersReady', 'True'), c('Ready', 'False', 'corresponding condition of pod readiness gate "example.com/lb" does not exist.'), c('example.com/lb', 'True')], true],
  ['Ready already follows the gate', [c('ContainersReady', 'True'), c('Ready', 'True'), c('example.com/lb', 'True')], false],
  ['a gate turned False under a Ready pod', [c('ContainersReady', 'True'), c('Ready', 'True'), c('example.com/lb', 'False')], true],
  ['no Ready condition yet (the agent has not reported)', [c('example.com/lb', 'True')], false],
])('readinessNeedsSync: %s -> %s', (_what, conditions, want) => {
  expect(readinessNeedsSync(gated(conditions, ['example.com/lb']))).toBe(want);
});

test('readinessNeedsSync: a pod without gates never', () => {
  expect(readinessNeedsSync({ spec: {}, status: { conditions: [c('Ready', 'False')] } })).toBe(false);
});
