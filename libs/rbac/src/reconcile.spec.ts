import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from './bootstrap-policy';
import { aggregatedRules } from './aggregation';
import { reconcileBinding, reconcileClusterRole } from './reconcile';

describe('bootstrap policy reconciliation', () => {
  const discovery = bootstrapClusterRoles().find((r) => r.metadata.name === 'system:discovery')!;
  const basic = bootstrapClusterRoleBindings().find((b) => b.metadata.name === 'system:basic-user')!;

  it('creates what is missing and leaves an up-to-date object alone', () => {
    expect(reconcileClusterRole(undefined, discovery)).toEqual({ action: 'create', object: discovery });
    expect(reconcileClusterRole(discovery, discovery)).toEqual({ action: 'none' });
  });

  it('adds missing rules to an auto-updated role and keeps the ones an administrator added', () => {
    const existing = { ...discovery, rules: [{ verbs: ['get'], nonResourceURLs: ['/custom'] }] };
    const out = reconcileClusterRole(existing, discovery);
    expect(out.action).toBe('update');
    const rules = (out as { object: typeof discovery }).object.rules!;
    expect(rules[0]).toEqual({ verbs: ['get'], nonResourceURLs: ['/custom'] });
    expect(rules).toContainEqual({ verbs: ['get'], nonResourceURLs: ['/api'] });
  });

  it('leaves an object annotated autoupdate=false alone', () => {
    const existing = { ...discovery, metadata: { ...discovery.metadata, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: [] };
    expect(reconcileClusterRole(existing, discovery)).toEqual({ action: 'none' });
  });

  it('adds missing subjects to a binding, and recreates one whose roleRef differs', () => {
    const existing = { ...basic, subjects: [{ kind: 'User', name: 'extra' }] };
    const out = reconcileBinding(existing, basic) as { action: string; object: typeof basic };
    expect(out.action).toBe('update');
    expect(out.object.subjects).toEqual([{ kind: 'User', name: 'extra' }, ...basic.subjects!]);
    expect(reconcileBinding({ ...basic, roleRef: { ...basic.roleRef, name: 'other' } }, basic).action).toBe('recreate');
  });

  it('keeps aggregated roles\' rules to the aggregation controller', () => {
    const admin = bootstrapClusterRoles().find((r) => r.metadata.name === 'admin')!;
    expect(reconcileClusterRole({ ...admin, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }, admin)).toEqual({ action: 'none' });
  });
});

describe('aggregated cluster roles', () => {
  it('admin/edit/view hold the rules of the roles labelled for them (view inside edit inside admin)', () => {
    const roles = bootstrapClusterRoles();
    // Resolve in dependency order, as the controller converges: view, then edit, then admin.
    for (const name of ['view', 'edit', 'admin']) {
      const role = roles.find((r) => r.metadata.name === name)!;
      role.rules = aggregatedRules(role, roles)!;
    }
    const rulesOf = (n: string) => roles.find((r) => r.metadata.name === n)!.rules!;
    expect(rulesOf('view')).toEqual(rulesOf('system:aggregate-to-view'));
    expect(rulesOf('edit')).toEqual(expect.arrayContaining([...rulesOf('system:aggregate-to-edit'), ...rulesOf('system:aggregate-to-view')]));
    expect(rulesOf('admin')).toEqual(expect.arrayContaining([...rulesOf('system:aggregate-to-admin'), ...rulesOf('edit')]));
    expect(aggregatedRules(roles.find((r) => r.metadata.name === 'cluster-admin')!, roles)).toBeUndefined();
  });
});
