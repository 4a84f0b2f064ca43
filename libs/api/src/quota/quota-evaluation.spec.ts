// Quota evaluation: what pods and other objects use, which quotas match them, and upstream's refusals.
import type { KubeObject } from '@cl/apimachinery';
import { checkCreate, evaluatorFor, podEvaluator, quotaUsage, toResourceList, QuotaRefusal, type QuotaObject } from './quota-evaluation';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const c = (name: string, requests?: Record<string, string>, limits?: Record<string, string>) => ({ name, image: 'busybox', resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } });
const pod = (spec: object, extra: object = {}): KubeObject => ({ metadata: { name: 'p', namespace: 'ns' }, spec, ...extra });
const usage = (p: KubeObject) => toResourceList(podEvaluator.usage(p, NOW));

test.each([
  ['a best-effort pod', pod({ containers: [c('a')] }), { 'count/pods': '1', pods: '1' }],
  [
    'requests and limits',
    pod({ containers: [c('a', { cpu: '100m', memory: '64Mi' }, { cpu: '200m', memory: '128Mi' }), c('b', { cpu: '100m' })] }),
    { 'count/pods': '1', pods: '1', cpu: '200m', 'requests.cpu': '200m', memory: '64Mi', 'requests.memory': '64Mi', 'limits.cpu': '200m', 'limits.memory': '128Mi' },
  ],
  ['an init container larger than the containers', pod({ initContainers: [c('i', { cpu: '1' })], containers: [c('a', { cpu: '100m' })] }), { 'count/pods': '1', pods: '1', cpu: '1', 'requests.cpu': '1' }],
  [
    'a sidecar adds to the containers',
    pod({ initContainers: [{ ...c('s', { cpu: '300m' }), restartPolicy: 'Always' }], containers: [c('a', { cpu: '100m' })] }),
    { 'count/pods': '1', pods: '1', cpu: '400m', 'requests.cpu': '400m' },
  ],
  ['an extended resource counts as requests.<name>', pod({ containers: [c('a', { 'example.com/gpu': '2' })] }), { 'count/pods': '1', pods: '1', 'requests.example.com/gpu': '2' }],
  ['a Succeeded pod counts only as an object', pod({ containers: [c('a', { cpu: '1' })] }, { status: { phase: 'Succeeded' } }), { 'count/pods': '1' }],
  ['a Failed pod counts only as an object', pod({ containers: [c('a', { cpu: '1' })] }, { status: { phase: 'Failed' } }), { 'count/pods': '1' }],
  [
    'a pod within its deletion grace period still counts',
    { ...pod({ containers: [c('a')] }), metadata: { name: 'p', deletionTimestamp: '2026-01-01T00:00:10Z', deletionGracePeriodSeconds: 30 } },
    { 'count/pods': '1', pods: '1' },
  ],
  [
    'a pod past its deletion grace period does not',
    { ...pod({ containers: [c('a')] }), metadata: { name: 'p', deletionTimestamp: '2025-12-31T23:58:00Z', deletionGracePeriodSeconds: 30 } },
    { 'count/pods': '1' },
  ],
])('pod usage: %s', (_name, p, expected) => {
  expect(usage(p)).toEqual(expected);
});

test.each([
  ['pods (and compute)', { group: '', resource: 'pods' }, ['count/pods', 'pods', 'requests.cpu']],
  ['configmaps (and their legacy name)', { group: '', resource: 'configmaps' }, ['count/configmaps', 'configmaps']],
  ['secrets', { group: '', resource: 'secrets' }, ['count/secrets', 'secrets']],
  ['serviceaccounts (count/ only)', { group: '', resource: 'serviceaccounts' }, ['count/serviceaccounts']],
  ['a named group', { group: 'coordination.k8s.io', resource: 'leases' }, ['count/leases.coordination.k8s.io']],
])('object count names of %s', (_name, gr, names) => {
  const all = ['count/pods', 'pods', 'count/configmaps', 'configmaps', 'count/secrets', 'secrets', 'count/serviceaccounts', 'serviceaccounts', 'count/leases.coordination.k8s.io', 'requests.cpu'];
  expect(evaluatorFor(gr)!.matchingResources(all)).toEqual(names);
});

test('core events are never counted', () => {
  expect(evaluatorFor({ group: '', resource: 'events' })).toBeUndefined();
});

const quota = (name: string, hard: Record<string, string>, used?: Record<string, string>, spec: object = {}): QuotaObject => ({
  metadata: { name, namespace: 'ns', resourceVersion: '5' },
  spec: { hard, ...spec },
  status: used ? { hard, used } : { hard },
});

/** checkCreate's refusal message, or the new used of each changed quota. */
function check(quotas: QuotaObject[], p: KubeObject): string | Record<string, Record<string, string>> {
  try {
    return Object.fromEntries(checkCreate(quotas, podEvaluator, p, NOW).map((x) => [x.quota.metadata!.name!, x.used]));
  } catch (e) {
    if (e instanceof QuotaRefusal) return e.message;
    throw e;
  }
}

test.each([
  ['room left: used goes up', [quota('q', { pods: '2' }, { pods: '1' })], pod({ containers: [c('a')] }), { q: { pods: '2' } }],
  ['no room: upstream message', [quota('q', { pods: '2' }, { pods: '2' })], pod({ containers: [c('a')] }), 'exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2'],
  [
    'only the exceeded names are printed',
    [quota('q', { pods: '5', 'requests.cpu': '1' }, { pods: '1', 'requests.cpu': '800m' })],
    pod({ containers: [c('a', { cpu: '500m' })] }),
    'exceeded quota: q, requested: requests.cpu=500m, used: requests.cpu=800m, limited: requests.cpu=1',
  ],
  [
    'cpu under quota must be declared by every container',
    [quota('compute', { 'limits.cpu': '4', 'requests.memory': '1Gi' }, { 'limits.cpu': '0', 'requests.memory': '0' })],
    pod({ containers: [c('a', { cpu: '100m' }), c('b')] }),
    'failed quota: compute: must specify limits.cpu for: a,b; requests.memory for: a,b',
  ],
  ['a quota without usage yet', [quota('q', { pods: '2' })], pod({ containers: [c('a')] }), 'status unknown for quota: q, resources: pods'],
  ['a quota limiting other things is left alone', [quota('q', { configmaps: '1' }, { configmaps: '1' })], pod({ containers: [c('a')] }), {}],
  [
    'every matching quota is charged',
    [quota('a', { pods: '3' }, { pods: '0' }), quota('b', { 'count/pods': '3' }, { 'count/pods': '1' })],
    pod({ containers: [c('a')] }),
    { a: { pods: '1' }, b: { 'count/pods': '2' } },
  ],
  ['a BestEffort quota ignores a Burstable pod', [quota('q', { pods: '1' }, { pods: '1' }, { scopes: ['BestEffort'] })], pod({ containers: [c('a', { cpu: '1' })] }), {}],
  [
    'a NotBestEffort quota counts it',
    [quota('q', { pods: '1' }, { pods: '1' }, { scopes: ['NotBestEffort'] })],
    pod({ containers: [c('a', { cpu: '1' })] }),
    'exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1',
  ],
  [
    'a PriorityClass selector matches by class',
    [quota('q', { pods: '1' }, { pods: '1' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } })],
    pod({ priorityClassName: 'low', containers: [c('a')] }),
    {},
  ],
])('create: %s', (_name, quotas, p, expected) => {
  expect(check(quotas, p)).toEqual(expected);
});

test('usage of a namespace: every hard name, from the objects in scope', () => {
  const pods = [pod({ containers: [c('a', { cpu: '100m' })] }), pod({ containers: [c('b')] }), pod({ containers: [c('c', { cpu: '1' })] }, { status: { phase: 'Succeeded' } })];
  const cms = [{ metadata: { name: 'x' } }, { metadata: { name: 'y' } }];
  const q = quota('q', { pods: '10', 'count/pods': '10', 'requests.cpu': '2', configmaps: '5', services: '3' });
  const used = quotaUsage(q, [[podEvaluator, pods], [evaluatorFor({ group: '', resource: 'configmaps' })!, cms]], NOW);
  expect(toResourceList(used)).toEqual({ pods: '2', 'count/pods': '3', 'requests.cpu': '100m', configmaps: '2', services: '0' });
  const bestEffort = quota('be', { pods: '10' }, undefined, { scopes: ['BestEffort'] });
  expect(toResourceList(quotaUsage(bestEffort, [[podEvaluator, pods]], NOW))).toEqual({ pods: '1' });
});
