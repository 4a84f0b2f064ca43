// ResourceQuota validation (upstream's ValidateResourceQuota and its update rules) and the REQUEST / LIMIT cells.
import type { KubeObject } from '@cl/apimachinery';
import { quotaCells, resourceQuotaStrategy } from './resource-quotas';

const quota = (spec: object, status?: object): KubeObject => ({ metadata: { name: 'q', namespace: 'ns' }, spec, ...(status ? { status } : {}) });
const messages = (spec: object, status?: object) => resourceQuotaStrategy.validate!(quota(spec, status)).map((e) => e.message);

test.each([
  ['object counts and compute', { hard: { pods: '10', 'requests.cpu': '2', 'limits.memory': '4Gi', 'count/configmaps': '5', 'count/deployments.apps': '1' } }, []],
  ['an unknown unprefixed name', { hard: { gpus: '1' } }, ['spec.hard[gpus]: Invalid value: "gpus": must be a standard resource type or fully qualified', 'spec.hard[gpus]: Invalid value: "gpus": must be a standard resource for quota']],
  ['a name that is a resource but not a quota', { hard: { storage: '1Gi' } }, ['spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota']],
  ['a negative limit', { hard: { 'requests.cpu': '-1' } }, ['spec.hard[requests.cpu]: Invalid value: "-1": must be greater than or equal to 0']],
  ['a fraction of a count', { hard: { pods: '1500m' } }, ['spec.hard[pods]: Invalid value: "1500m": must be an integer']],
  ['a fraction of count/*', { hard: { 'count/secrets': '0.5' } }, ['spec.hard[count/secrets]: Invalid value: "500m": must be an integer']],
  ['a bad quantity', { hard: { pods: 'two' } }, [expect.stringMatching(/^spec.hard\[pods\]: Invalid value: "two": quantities must match/)]],
  ['pod scopes on pod resources', { hard: { pods: '5', cpu: '1' }, scopes: ['NotBestEffort', 'Terminating'] }, []],
  ['an unknown scope', { hard: { pods: '5' }, scopes: ['Sometimes'] }, ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"Sometimes"}: unsupported scope']],
  ['a pod scope on another resource', { hard: { configmaps: '5' }, scopes: ['BestEffort'] }, ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource']],
  [
    'conflicting scopes',
    { hard: { pods: '5' }, scopes: ['Terminating', 'NotTerminating'] },
    ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating", "NotTerminating"}: conflicting scopes'],
  ],
  ['a priority class selector', { hard: { pods: '5' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }, []],
  [
    'In without values',
    { hard: { pods: '5' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In' }] } },
    ["spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"],
  ],
  [
    'a best-effort selector that is not Exists',
    { hard: { pods: '5' }, scopeSelector: { matchExpressions: [{ scopeName: 'BestEffort', operator: 'In', values: ['x'] }] } },
    [
      "spec.scopeSelector.matchExpressions.operator: Invalid value: \"In\": must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
    ],
  ],
  ['an unknown operator', { hard: { pods: '5' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'Is' }] } }, ['spec.scopeSelector.matchExpressions.operator: Invalid value: "Is": not a valid selector operator']],
])('spec: %s', (_name, spec, expected) => {
  expect(messages(spec)).toEqual(expected);
});

test('scopes may not change; limits may', () => {
  const old = quota({ hard: { pods: '5' }, scopes: ['NotTerminating'] });
  expect(resourceQuotaStrategy.validateUpdate!(quota({ hard: { pods: '6' }, scopes: ['NotTerminating'] }), old)).toEqual([]);
  expect(resourceQuotaStrategy.validateUpdate!(quota({ hard: { pods: '5' }, scopes: ['Terminating'] }), old).map((e) => e.message)).toEqual([
    'spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating"}: field is immutable',
  ]);
});

test('status writes are checked as the spec is', () => {
  expect(resourceQuotaStrategy.validateStatusUpdate!(quota({ hard: { pods: '2' } }, { hard: { pods: '2' }, used: { pods: '-1' } }), quota({})).map((e) => e.message)).toEqual([
    'status.used[pods]: Invalid value: "-1": must be greater than or equal to 0',
  ]);
});

test('a created quota starts with an empty status', () => {
  const q = quota({ hard: { pods: '2' } }, { used: { pods: '0' } });
  resourceQuotaStrategy.prepareForCreate!(q);
  expect(q.status).toEqual({});
});

test.each([
  ['no status yet', undefined, ['', '']],
  ['counts and requests in REQUEST, sorted', { hard: { pods: '2', 'requests.cpu': '1', configmaps: '10' }, used: { pods: '1', 'requests.cpu': '500m' } }, ['configmaps: 0/10, pods: 1/2, requests.cpu: 500m/1', '']],
  ['limits.* in LIMIT', { hard: { 'limits.cpu': '2', 'limits.memory': '1Gi', cpu: '1' }, used: { 'limits.cpu': '0', 'limits.memory': '512Mi', cpu: '0' } }, ['cpu: 0/1', 'limits.cpu: 0/2, limits.memory: 512Mi/1Gi']],
])('cells: %s', (_name, status, cells) => {
  expect(quotaCells(quota({}, status))).toEqual(cells);
});
