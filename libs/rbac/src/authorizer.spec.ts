import { userInfo, type Attributes, type UserInfo } from '@cl/auth';
import { RbacAuthorizer } from './authorizer';
import { RbacIndex } from './policy-index';
import { rulesReview } from './rules-review';

const attrs = (user: UserInfo, a: Partial<Attributes>): Attributes => ({
  user,
  verb: 'get',
  isResourceRequest: true,
  path: '',
  namespace: '',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'pods',
  subresource: '',
  name: '',
  ...a,
});

function policy(): RbacIndex {
  const index = new RbacIndex();
  index.put('ClusterRole', { metadata: { name: 'pod-reader' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }] });
  index.put('ClusterRole', { metadata: { name: 'node-reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }] });
  index.put('Role', { metadata: { name: 'cm', namespace: 'a' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] }] });
  index.put('RoleBinding', { metadata: { name: 'jane-pods', namespace: 'a' }, roleRef: { kind: 'ClusterRole', name: 'pod-reader' }, subjects: [{ kind: 'User', name: 'jane' }] });
  index.put('RoleBinding', { metadata: { name: 'dev-cm', namespace: 'a' }, roleRef: { kind: 'Role', name: 'cm' }, subjects: [{ kind: 'Group', name: 'dev' }] });
  index.put('RoleBinding', { metadata: { name: 'sa', namespace: 'a' }, roleRef: { kind: 'ClusterRole', name: 'pod-reader' }, subjects: [{ kind: 'ServiceAccount', name: 'builder' }] });
  index.put('ClusterRoleBinding', { metadata: { name: 'nodes' }, roleRef: { kind: 'ClusterRole', name: 'node-reader' }, subjects: [{ kind: 'Group', name: 'ops' }] });
  index.put('ClusterRoleBinding', { metadata: { name: 'dangling' }, roleRef: { kind: 'ClusterRole', name: 'missing' }, subjects: [{ kind: 'User', name: 'bob' }] });
  return index;
}

describe('RbacAuthorizer', () => {
  const jane = userInfo({ username: 'jane', groups: ['dev', 'system:authenticated'] });
  const ops = userInfo({ username: 'olga', groups: ['ops'] });
  const builder = userInfo({ username: 'system:serviceaccount:a:builder', groups: ['system:serviceaccounts'] });
  const bob = userInfo({ username: 'bob' });
  const cases: Array<[string, UserInfo, Partial<Attributes>, string, string]> = [
    ['role binding to a cluster role', jane, { namespace: 'a' }, 'Allow', 'RBAC: allowed by RoleBinding "jane-pods/a" of ClusterRole "pod-reader" to User "jane"'],
    ['not in another namespace', jane, { namespace: 'b' }, 'NoOpinion', ''],
    ['not cluster-wide', jane, {}, 'NoOpinion', ''],
    ['group subject, named role rule', jane, { namespace: 'a', resource: 'configmaps', name: 'one' }, 'Allow', 'RBAC: allowed by RoleBinding "dev-cm/a" of Role "cm" to Group "dev"'],
    ['named rule, other name', jane, { namespace: 'a', resource: 'configmaps', name: 'two' }, 'NoOpinion', ''],
    ['service account subject defaults to the binding namespace', builder, { namespace: 'a', verb: 'list' }, 'Allow', 'RBAC: allowed by RoleBinding "sa/a" of ClusterRole "pod-reader" to ServiceAccount "builder/a"'],
    ['cluster role binding grants in every namespace', ops, { namespace: 'x', resource: 'nodes' }, 'Allow', 'RBAC: allowed by ClusterRoleBinding "nodes" of ClusterRole "node-reader" to Group "ops"'],
    ['a binding to a missing role is a resolution error', bob, {}, 'NoOpinion', 'RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found'],
  ];
  it.each(cases)('%s', (_n, user, a, decision, reason) => {
    expect(new RbacAuthorizer(policy()).authorize(attrs(user, a))).toEqual({ decision, reason });
  });

  it('follows changes: a deleted binding no longer grants, a changed role grants its new rules', () => {
    const index = policy();
    const authz = new RbacAuthorizer(index);
    index.delete('RoleBinding', 'a', 'jane-pods');
    expect(authz.authorize(attrs(jane, { namespace: 'a' })).decision).toBe('NoOpinion');
    index.put('Role', { metadata: { name: 'cm', namespace: 'a' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] });
    expect(authz.authorize(attrs(jane, { namespace: 'a' })).reason).toBe('RBAC: allowed by RoleBinding "dev-cm/a" of Role "cm" to Group "dev"');
    index.put('RoleBinding', { metadata: { name: 'dev-cm', namespace: 'a' }, roleRef: { kind: 'Role', name: 'cm' }, subjects: [{ kind: 'Group', name: 'other' }] });
    expect(authz.authorize(attrs(jane, { namespace: 'a' })).decision).toBe('NoOpinion');
  });

  it('tells the denial line upstream logs', () => {
    const lines: string[] = [];
    new RbacAuthorizer(policy(), { onNoOpinion: (l) => lines.push(l) }).authorize(attrs(jane, { namespace: 'b', resource: 'deployments', apiGroup: 'apps', subresource: 'scale', name: 'web' }));
    expect(lines).toEqual(['RBAC: no rules authorize user "jane" with groups ["dev" "system:authenticated"] to "get" resource "deployments.apps/scale" named "web" in namespace "b"']);
  });
});

describe('rulesReview', () => {
  it('lists the rules of the user in the namespace, incomplete with an evaluation error for a dangling binding', () => {
    const index = policy();
    index.put('ClusterRoleBinding', { metadata: { name: 'bob-urls' }, roleRef: { kind: 'ClusterRole', name: 'urls' }, subjects: [{ kind: 'User', name: 'bob' }] });
    index.put('ClusterRole', { metadata: { name: 'urls' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] });
    const resolver = new RbacAuthorizer(index).resolver;
    expect(rulesReview(resolver, userInfo({ username: 'jane', groups: ['dev'] }), 'a')).toEqual({
      resourceRules: [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] },
      ],
      nonResourceRules: [],
      incomplete: false,
    });
    const bob = rulesReview(resolver, userInfo({ username: 'bob' }), 'a');
    expect(bob.nonResourceRules).toEqual([{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]);
    expect(bob).toMatchObject({ incomplete: true, evaluationError: 'clusterrole.rbac.authorization.k8s.io "missing" not found' });
  });
});
