// The scale view of workloads: the Scale made from an object, and a written Scale turned back into spec.replicas.
import type { KubeObject } from '@cl/apimachinery';
import { applyScale, replicasScaleView, scaleOf } from './scale';

const meta = { name: 'web', namespace: 'ns', uid: 'u-1', resourceVersion: '42', creationTimestamp: '2026-01-01T00:00:00Z', generation: 3, labels: { app: 'web' } };
const workload = (spec: object, status: object = {}): KubeObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { ...meta }, spec, status });
const identity = { name: 'web', namespace: 'ns', uid: 'u-1', resourceVersion: '42', creationTimestamp: '2026-01-01T00:00:00Z' };

test.each<[string, KubeObject, object]>([
  ['replicas and a selector string', workload({ replicas: 3, selector: { matchLabels: { app: 'web', tier: 'fe' } } }, { replicas: 2 }), { spec: { replicas: 3 }, status: { replicas: 2, selector: 'app=web,tier=fe' } }],
  [
    'expressions in the selector',
    workload({ replicas: 1, selector: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod', 'dev'] }, { key: 'canary', operator: 'DoesNotExist' }] } }),
    { spec: { replicas: 1 }, status: { replicas: 0, selector: '!canary,env notin (dev,prod)' } },
  ],
  ['zero replicas are left out of spec, as Go omits them', workload({ replicas: 0, selector: { matchLabels: { app: 'web' } } }), { spec: {}, status: { replicas: 0, selector: 'app=web' } }],
  ['no selector: no selector string', workload({ replicas: 1 }), { spec: { replicas: 1 }, status: { replicas: 0 } }],
])('GET: %s', (_name, o, expected) => {
  expect(scaleOf(o)).toEqual({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: identity, ...expected });
});

test.each<[string, object, number, string | undefined]>([
  ['replicas from the Scale, its resourceVersion as the precondition', { metadata: { resourceVersion: '41' }, spec: { replicas: 7 } }, 7, '41'],
  ['no resourceVersion: unconditional', { spec: { replicas: 2 } }, 2, undefined],
  ['no replicas: zero (the Go zero value)', { spec: {} }, 0, undefined],
])('apply: %s', (_name, scale, replicas, rv) => {
  const current = workload({ replicas: 3, selector: { matchLabels: { app: 'web' } } }, { replicas: 3 });
  const next = applyScale(scale as KubeObject, structuredClone(current));
  expect(next).toEqual({ ...current, metadata: { ...meta, resourceVersion: rv }, spec: { replicas, selector: { matchLabels: { app: 'web' } } } });
});

test('apply: negative replicas are an invalid Scale', () => {
  expect(() => applyScale({ spec: { replicas: -2 } } as KubeObject, workload({ replicas: 1 }))).toThrow(
    expect.objectContaining({ status: expect.objectContaining({ code: 422, message: 'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -2: must be greater than or equal to 0' }) }),
  );
});

test('the Scale table: DESIRED and AVAILABLE', () => {
  const table = replicasScaleView.table!;
  expect(table.columns.map((c) => c.name)).toEqual(['Desired', 'Available']);
  expect(table.cells(scaleOf(workload({ replicas: 4, selector: { matchLabels: { app: 'web' } } }, { replicas: 3 })), 0)).toEqual([4, 3]);
});
