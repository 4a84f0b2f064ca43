// The bootstrap policy as data (upstream plugin/pkg/auth/authorizer/rbac/bootstrappolicy: policy.go,
// controller_policy.go): the cluster roles and bindings a new cluster starts with, reconciled at every start.
// The user-facing roles admin/edit/view are aggregated from the system:aggregate-to-* roles by label.
import { RBAC_GROUP, type Binding, type ClusterRole, type PolicyRule, type Subject } from './types';

export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
/** The label every bootstrap object carries (upstream `kubernetes.io/bootstrapping`, product-named here). */
export const BOOTSTRAP_LABEL = 'cl.io/bootstrapping';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const READ_WRITE = [...READ, ...WRITE];

const r = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
});
const url = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

const HEALTH = ['/livez', '/readyz', '/healthz', '/version', '/version/'];

/** label name -> the aggregate-to-* label key */
const aggregateTo = (to: string) => `rbac.authorization.k8s.io/aggregate-to-${to}`;

interface RoleSpec {
  name: string;
  rules: PolicyRule[];
  labels?: Record<string, string>;
  /** The label keys (value "true") whose cluster roles this one aggregates. */
  aggregates?: string[];
}

const ROLES: RoleSpec[] = [
  { name: 'cluster-admin', rules: [r(['*'], ['*'], ['*']), url(['*'], ['*'])] },
  { name: 'system:discovery', rules: [url(['get'], [...HEALTH, '/api', '/api/*', '/apis', '/apis/*', '/openapi', '/openapi/*'])] },
  { name: 'system:public-info-viewer', rules: [url(['get'], HEALTH)] },
  { name: 'system:monitoring', rules: [url(['get'], ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'])] },
  {
    name: 'system:basic-user',
    rules: [r(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']), r(['create'], ['authentication.k8s.io'], ['selfsubjectreviews'])],
  },
  { name: 'system:service-account-issuer-discovery', rules: [url(['get'], ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'])] },
  { name: 'admin', aggregates: [aggregateTo('admin')], rules: [] },
  { name: 'edit', labels: { [aggregateTo('admin')]: 'true' }, aggregates: [aggregateTo('edit')], rules: [] },
  { name: 'view', labels: { [aggregateTo('edit')]: 'true' }, aggregates: [aggregateTo('view')], rules: [] },
  {
    name: 'system:aggregate-to-admin',
    labels: { [aggregateTo('admin')]: 'true' },
    rules: [r(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']), r(READ_WRITE, [RBAC_GROUP], ['roles', 'rolebindings'])],
  },
  {
    name: 'system:aggregate-to-edit',
    labels: { [aggregateTo('edit')]: 'true' },
    rules: [
      r(['impersonate'], [''], ['serviceaccounts']),
      r(WRITE, [''], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
      r(['create'], [''], ['pods/eviction']),
      r(WRITE, [''], ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy', 'persistentvolumeclaims', 'configmaps', 'secrets', 'events']),
      r(['create'], [''], ['serviceaccounts/token']),
      r(WRITE, ['apps'], ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale']),
      r(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
      r(WRITE, ['batch'], ['jobs', 'cronjobs']),
      r(WRITE, ['policy'], ['poddisruptionbudgets']),
      r(WRITE, ['networking.k8s.io'], ['networkpolicies', 'ingresses']),
      r(WRITE, ['coordination.k8s.io'], ['leases']),
      r(READ, [''], ['secrets', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'services/proxy']),
    ],
  },
  {
    name: 'system:aggregate-to-view',
    labels: { [aggregateTo('view')]: 'true' },
    rules: [
      r(READ, [''], ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
      r(READ, [''], ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log']),
      r(READ, [''], ['namespaces']),
      r(READ, ['discovery.k8s.io'], ['endpointslices']),
      r(READ, ['apps'], ['controllerrevisions', 'statefulsets', 'statefulsets/scale', 'statefulsets/status', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status']),
      r(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      r(READ, ['batch'], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
      r(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      r(READ, ['networking.k8s.io'], ['networkpolicies', 'ingresses', 'ingresses/status']),
      r(READ, ['coordination.k8s.io'], ['leases']),
      r(READ, ['events.k8s.io'], ['events']),
    ],
  },
  { name: 'system:heapster', rules: [r(READ, [''], ['events', 'pods', 'nodes', 'namespaces']), r(READ, ['extensions'], ['deployments'])] },
  {
    name: 'system:node',
    rules: [
      r(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      r(['create'], ['authorization.k8s.io'], ['subjectaccessreviews', 'localsubjectaccessreviews']),
      r(READ, [''], ['services']),
      r(['create', 'get', 'list', 'watch'], [''], ['nodes']),
      r(['update', 'patch'], [''], ['nodes/status']),
      r(['update', 'patch'], [''], ['nodes']),
      r(['create', 'update', 'patch'], ['', 'events.k8s.io'], ['events']),
      r(READ, [''], ['pods']),
      r(['create', 'delete'], [''], ['pods']),
      r(['update', 'patch'], [''], ['pods/status']),
      r(['create'], [''], ['pods/eviction']),
      r(['get'], [''], ['secrets', 'configmaps']),
      r(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
      r(['get'], [''], ['endpoints']),
      r(['update', 'patch'], [''], ['persistentvolumeclaims/status']),
      r(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
      r(['get', 'create', 'update', 'patch', 'delete'], ['coordination.k8s.io'], ['leases']),
      r(['get'], ['storage.k8s.io'], ['volumeattachments']),
      r(['create'], [''], ['serviceaccounts/token']),
      r(READ, ['storage.k8s.io'], ['csidrivers']),
      r(['get', 'create', 'update', 'patch', 'delete'], ['storage.k8s.io'], ['csinodes']),
      r(READ, ['node.k8s.io'], ['runtimeclasses']),
    ],
  },
  {
    name: 'system:node-proxier',
    rules: [
      r(['list', 'watch'], [''], ['services', 'endpoints']),
      r(READ, [''], ['nodes']),
      r(['create', 'update', 'patch'], ['', 'events.k8s.io'], ['events']),
      r(['list', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
    ],
  },
  { name: 'system:node-bootstrapper', rules: [r(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests'])] },
  { name: 'system:auth-delegator', rules: [r(['create'], ['authentication.k8s.io'], ['tokenreviews']), r(['create'], ['authorization.k8s.io'], ['subjectaccessreviews'])] },
  { name: 'system:kube-dns', rules: [r(['list', 'watch'], [''], ['endpoints', 'services'])] },
  {
    name: 'system:kube-scheduler',
    rules: [
      r(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
      r(['create'], ['coordination.k8s.io'], ['leases']),
      r(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-scheduler']),
      r(['create'], [''], ['endpoints']),
      r(['get', 'update'], [''], ['endpoints'], ['kube-scheduler']),
      r(READ, [''], ['nodes']),
      r(['get', 'list', 'watch', 'delete'], [''], ['pods']),
      r(['create'], [''], ['bindings', 'pods/binding']),
      r(['patch', 'update'], [''], ['pods/status']),
      r(READ, [''], ['replicationcontrollers', 'services']),
      r(READ, ['apps', 'extensions'], ['replicasets']),
      r(READ, ['apps'], ['statefulsets']),
      r(READ, ['policy'], ['poddisruptionbudgets']),
      r(READ, [''], ['persistentvolumeclaims', 'persistentvolumes']),
      r(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      r(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      r(READ, ['storage.k8s.io'], ['csinodes', 'csidrivers', 'csistoragecapacities', 'storageclasses']),
      r(READ, [''], ['namespaces']),
      r(READ, ['scheduling.k8s.io'], ['priorityclasses']),
    ],
  },
  {
    name: 'system:kube-controller-manager',
    rules: [
      r(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
      r(['create'], ['coordination.k8s.io'], ['leases']),
      r(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-controller-manager']),
      r(['create'], [''], ['endpoints']),
      r(['get', 'update'], [''], ['endpoints'], ['kube-controller-manager']),
      r(['create'], [''], ['secrets', 'serviceaccounts']),
      r(['delete'], [''], ['secrets']),
      r(['get'], [''], ['configmaps', 'namespaces', 'secrets', 'serviceaccounts']),
      r(['update'], [''], ['secrets', 'serviceaccounts']),
      r(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      r(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      r(['list', 'watch'], ['*'], ['*']),
      r(['create'], [''], ['serviceaccounts/token']),
    ],
  },
  { name: 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', rules: [r(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/nodeclient'])] },
  { name: 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', rules: [r(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/selfnodeclient'])] },
  { name: 'system:certificates.k8s.io:kube-apiserver-client-approver', rules: [r(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client'])] },
  { name: 'system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', rules: [r(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet'])] },
  { name: 'system:certificates.k8s.io:kubelet-serving-approver', rules: [r(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kubelet-serving'])] },
  { name: 'system:certificates.k8s.io:legacy-unknown-approver', rules: [r(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/legacy-unknown'])] },
  ...controllerRoles(),
];

/** The controllers this server runs in process (libs/controllers, libs/registry), as upstream's controller roles. */
function controllerRoles(): RoleSpec[] {
  const ev = r(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']);
  const c = (name: string, rules: PolicyRule[]): RoleSpec => ({ name: `system:controller:${name}`, rules: [...rules, ev] });
  return [
    c('deployment-controller', [
      r(['get', 'list', 'watch', 'update'], ['apps', 'extensions'], ['deployments']),
      r(['update'], ['apps', 'extensions'], ['deployments/status']),
      r(['update'], ['apps', 'extensions'], ['deployments/finalizers']),
      r(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], ['apps', 'extensions'], ['replicasets']),
      r(['get', 'list', 'watch', 'update'], [''], ['pods']),
    ]),
    c('replicaset-controller', [
      r(['get', 'list', 'watch', 'update'], ['apps', 'extensions'], ['replicasets']),
      r(['update'], ['apps', 'extensions'], ['replicasets/status']),
      r(['update'], ['apps', 'extensions'], ['replicasets/finalizers']),
      r(['list', 'watch', 'patch', 'create', 'delete'], [''], ['pods']),
    ]),
    c('pod-garbage-collector', [r(['list', 'watch', 'delete'], [''], ['pods']), r(['get', 'list'], [''], ['nodes']), r(['patch'], [''], ['pods/status'])]),
    c('node-controller', [
      r(['get', 'list', 'update', 'delete', 'patch'], [''], ['nodes']),
      r(['patch', 'update'], [''], ['nodes/status']),
      r(['patch', 'update'], [''], ['pods/status']),
      r(['list', 'delete'], [''], ['pods']),
      r(['get'], [''], ['pods']),
    ]),
    c('namespace-controller', [r(['get', 'list', 'watch', 'delete'], [''], ['namespaces']), r(['update'], [''], ['namespaces/finalize', 'namespaces/status']), r(['get', 'list', 'delete', 'deletecollection'], ['*'], ['*'])]),
    c('generic-garbage-collector', [r(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*'])]),
    c('serviceaccount-controller', [r(['create'], [''], ['serviceaccounts'])]),
    c('resourcequota-controller', [r(['list', 'watch'], ['*'], ['*']), r(['update'], [''], ['resourcequotas/status'])]),
    c('clusterrole-aggregation-controller', [r(['escalate', 'get', 'list', 'watch', 'update', 'patch'], [RBAC_GROUP], ['clusterroles'])]),
  ];
}

interface BindingSpec {
  name: string;
  role: string;
  subjects: Subject[];
}

const group = (name: string): Subject => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });
const user = (name: string): Subject => ({ kind: 'User', apiGroup: RBAC_GROUP, name });
const sa = (name: string): Subject => ({ kind: 'ServiceAccount', name, namespace: 'kube-system' });

const BINDINGS: BindingSpec[] = [
  { name: 'cluster-admin', role: 'cluster-admin', subjects: [group('system:masters')] },
  { name: 'system:monitoring', role: 'system:monitoring', subjects: [group('system:monitoring')] },
  { name: 'system:discovery', role: 'system:discovery', subjects: [group('system:authenticated')] },
  { name: 'system:basic-user', role: 'system:basic-user', subjects: [group('system:authenticated')] },
  { name: 'system:public-info-viewer', role: 'system:public-info-viewer', subjects: [group('system:authenticated'), group('system:unauthenticated')] },
  { name: 'system:service-account-issuer-discovery', role: 'system:service-account-issuer-discovery', subjects: [group('system:serviceaccounts')] },
  { name: 'system:node-proxier', role: 'system:node-proxier', subjects: [user('system:kube-proxy')] },
  { name: 'system:kube-controller-manager', role: 'system:kube-controller-manager', subjects: [user('system:kube-controller-manager')] },
  { name: 'system:kube-dns', role: 'system:kube-dns', subjects: [sa('kube-dns')] },
  { name: 'system:kube-scheduler', role: 'system:kube-scheduler', subjects: [user('system:kube-scheduler')] },
  // Upstream keeps this binding without subjects: nodes are authorized by the Node authorizer instead.
  { name: 'system:node', role: 'system:node', subjects: [] },
  ...ROLES.filter((s) => s.name.startsWith('system:controller:')).map((s) => ({ name: s.name, role: s.name, subjects: [sa(s.name.slice('system:controller:'.length))] })),
];

const bootstrapMeta = (name: string, labels: Record<string, string> = {}) => ({
  name,
  labels: { [BOOTSTRAP_LABEL]: 'rbac-defaults', ...labels },
  annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
});

export function bootstrapClusterRoles(): ClusterRole[] {
  return ROLES.map((s) => ({
    metadata: bootstrapMeta(s.name, s.labels),
    ...(s.aggregates ? { aggregationRule: { clusterRoleSelectors: s.aggregates.map((k) => ({ matchLabels: { [k]: 'true' } })) } } : {}),
    rules: s.rules,
  }));
}

export function bootstrapClusterRoleBindings(): Binding[] {
  return BINDINGS.map((b) => ({ metadata: bootstrapMeta(b.name), roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: b.role }, subjects: b.subjects }));
}

/** The rules the Node authorizer grants any node outside the graph-checked resources (upstream NodeRules()). */
export function nodeRules(): PolicyRule[] {
  return ROLES.find((s) => s.name === 'system:node')!.rules;
}
