// RBAC privilege escalation prevention on role and binding writes (upstream pkg/registry/rbac/*/policybased):
// a create or update of a role, cluster role, role binding or cluster role binding passes when the user is in
// system:masters, may `escalate` that role (`bind` the referenced role for a binding), or already holds every rule
// it would grant; otherwise 403 with upstream's "attempting to grant RBAC permissions not currently held" text.
// Only installed when RBAC is an authorization mode. Writes without a user are the server's own.
import { apiErrors, type KubeObject } from '@cl/apimachinery';
import type { Attributes, MaybePromise, Decision, UserInfo } from '@cl/auth';
import { confirmNoEscalation, EscalationError, RBAC_GROUP, type PolicyRule, type RbacSource, type RoleRef, type RuleResolver } from '@cl/rbac';
import type { AdmissionAttributes, AdmissionPlugin } from '@cl/registry';

const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** The fields the garbage collector may change without an escalation check (upstream IsOnlyMutatingGCFields). */
function onlyGcFields(obj: KubeObject, old: KubeObject | null): boolean {
  if (!old) return false;
  const strip = (o: KubeObject) => {
    const { ownerReferences: _o, finalizers: _f, resourceVersion: _r, managedFields: _m, generation: _g, ...meta } = (o.metadata ?? {}) as Record<string, unknown>;
    return JSON.stringify({ ...o, metadata: meta });
  };
  return strip(obj) === strip(old);
}

export interface EscalationCheckDeps {
  /** The server's authorizer chain: asked for `escalate` and `bind`, as upstream asks its authorizer. */
  authorize(attrs: Attributes): MaybePromise<Decision>;
  resolver: RuleResolver;
  source: RbacSource;
}

export function rbacEscalationAdmission(deps: EscalationCheckDeps): AdmissionPlugin {
  const allowed = async (user: UserInfo, verb: string, resource: string, namespace: string, name: string) =>
    (await deps.authorize({ user, verb, isResourceRequest: true, path: '', namespace, apiGroup: RBAC_GROUP, apiVersion: 'v1', resource, subresource: '', name })).decision === 'Allow';

  const confirm = (a: AdmissionAttributes, user: UserInfo, name: string, rules: readonly PolicyRule[], message?: string) => {
    try {
      confirmNoEscalation(deps.resolver, user, a.namespace, rules);
    } catch (e) {
      if (e instanceof EscalationError) throw apiErrors.forbidden(a.resource, name, message ?? e.message);
      throw e;
    }
  };

  return {
    name: 'RBACEscalation',
    async validate(a) {
      if (a.resource.group !== RBAC_GROUP || a.subresource || (a.operation !== 'CREATE' && a.operation !== 'UPDATE') || !a.object) return;
      const user = a.user as UserInfo | undefined;
      if (!user?.username || user.groups.includes('system:masters')) return;
      if (a.operation === 'UPDATE' && onlyGcFields(a.object, a.oldObject)) return;
      const name = a.name || a.object.metadata?.name || '';
      const resource = a.resource.resource;
      if (resource === 'roles' || resource === 'clusterroles') {
        if (await allowed(user, 'escalate', resource, a.namespace, name)) return;
        confirm(a, user, name, ((a.object as { rules?: PolicyRule[] }).rules ?? []) as PolicyRule[]);
        // An aggregation rule can gather anything: it takes full authority (upstream).
        if (resource === 'clusterroles' && (a.object as { aggregationRule?: unknown }).aggregationRule) {
          confirm(a, user, name, FULL_AUTHORITY, 'must have cluster-admin privileges to use the aggregationRule');
        }
        return;
      }
      if (resource !== 'rolebindings' && resource !== 'clusterrolebindings') return;
      const ref = (a.object as { roleRef?: RoleRef }).roleRef;
      if (!ref) return;
      const refResource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
      if (await allowed(user, 'bind', refResource, a.namespace, ref.name)) return;
      const role = ref.kind === 'Role' ? deps.source.getRole(a.namespace, ref.name) : deps.source.getClusterRole(ref.name);
      if (!role) throw apiErrors.notFound({ group: RBAC_GROUP, resource: refResource }, ref.name);
      confirm(a, user, name, role.rules ?? []);
    },
  };
}
