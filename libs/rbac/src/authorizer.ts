// The RBAC authorizer (upstream plugin/pkg/auth/authorizer/rbac): the rules of every cluster role bound to the
// user cluster-wide, then, for a namespaced request, of every role bound to it in that namespace, until one rule
// allows the request. Allow names the binding that granted it; otherwise NoOpinion (RBAC never denies), with the
// resolution errors (a binding to a missing role) as the reason.
import type { Attributes, Decision, UserInfo } from '@cl/auth';
import type { RbacSource } from './policy-index';
import { ruleAllows } from './rules';
import { appliesTo, describeSubject } from './subjects';
import type { Binding, PolicyRule, Subject } from './types';

/** Where a rule came from (upstream's authorizationRuleResolver source describers). */
export interface RuleSource {
  binding: Binding;
  /** '' for a ClusterRoleBinding. */
  namespace: string;
  subject: Subject;
}

/** `ClusterRoleBinding "x" of ClusterRole "y" to User "z"` / `RoleBinding "x/ns" of Role "y" to Group "g"`. */
export function describeSource(s: RuleSource): string {
  const ref = `${s.binding.roleRef.kind} ${JSON.stringify(s.binding.roleRef.name)}`;
  if (!s.namespace) return `ClusterRoleBinding ${JSON.stringify(s.binding.metadata.name)} of ${ref} to ${describeSubject(s.subject, '')}`;
  return `RoleBinding ${JSON.stringify(`${s.binding.metadata.name}/${s.namespace}`)} of ${ref} to ${describeSubject(s.subject, s.namespace)}`;
}

/** Return false to stop visiting. `rule` is undefined when `error` is set. */
export type RuleVisitor = (source: RuleSource | undefined, rule: PolicyRule | undefined, error: Error | undefined) => boolean;

const notFound = (kind: string, name: string) => new Error(`${kind}.rbac.authorization.k8s.io ${JSON.stringify(name)} not found`);

/** upstream's DefaultRuleResolver: resolves bindings to their roles' rules. */
export class RuleResolver {
  constructor(private readonly source: RbacSource) {}

  private rulesOfRef(b: Binding, namespace: string): PolicyRule[] | Error {
    const ref = b.roleRef;
    if (ref.kind === 'ClusterRole') return this.source.getClusterRole(ref.name)?.rules ?? notFound('clusterrole', ref.name);
    if (ref.kind === 'Role' && namespace) return this.source.getRole(namespace, ref.name)?.rules ?? notFound('role', ref.name);
    return new Error(`unsupported role reference kind: ${JSON.stringify(ref.kind)}`);
  }

  private visitBinding(user: UserInfo, b: Binding, namespace: string, visit: RuleVisitor): boolean {
    const subjects = b.subjects ?? [];
    let subject: Subject | undefined;
    for (let i = 0; i < subjects.length && !subject; i++) if (appliesTo(user, subjects[i], namespace)) subject = subjects[i];
    if (!subject) return true;
    const rules = this.rulesOfRef(b, namespace);
    const source = { binding: b, namespace, subject };
    if (rules instanceof Error) return visit(source, undefined, rules);
    for (const r of rules) if (!visit(source, r, undefined)) return false;
    return true;
  }

  /** upstream's VisitRulesFor: cluster role bindings first, then the namespace's role bindings. */
  visitRulesFor(user: UserInfo, namespace: string, visit: RuleVisitor): void {
    for (const b of this.source.clusterRoleBindingsFor(user)) if (!this.visitBinding(user, b, '', visit)) return;
    if (!namespace) return;
    for (const b of this.source.roleBindingsFor(user, namespace)) if (!this.visitBinding(user, b, namespace, visit)) return;
  }

  /** upstream's RulesFor: every rule that applies to the user in `namespace` ('' for cluster-wide only). */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: Error[] } {
    const rules: PolicyRule[] = [];
    const errors: Error[] = [];
    this.visitRulesFor(user, namespace, (_s, r, e) => {
      if (r) rules.push(r);
      if (e) errors.push(e);
      return true;
    });
    return { rules, errors };
  }
}

/** Go's utilerrors aggregate text: one error as itself, several as `[a, b]`. */
export const aggregateText = (errs: readonly Error[]) => (errs.length === 1 ? errs[0].message : `[${errs.map((e) => e.message).join(', ')}]`);

/** upstream's denial line (logged at -v=5): `RBAC: no rules authorize user "x" with groups ["a"] to "get" resource "pods" in namespace "b"`. */
export function denialMessage(a: Attributes): string {
  let operation: string;
  if (a.isResourceRequest) {
    operation = `"${a.verb}" resource "${a.resource}${a.apiGroup ? `.${a.apiGroup}` : ''}${a.subresource ? `/${a.subresource}` : ''}"${a.name ? ` named "${a.name}"` : ''}`;
  } else {
    operation = `${JSON.stringify(a.verb)} nonResourceURL ${JSON.stringify(a.path)}`;
  }
  const scope = a.namespace ? `in namespace ${JSON.stringify(a.namespace)}` : 'cluster-wide';
  const groups = `[${a.user.groups.map((g) => JSON.stringify(g)).join(' ')}]`;
  return `RBAC: no rules authorize user ${JSON.stringify(a.user.username)} with groups ${groups} to ${operation} ${scope}`;
}

export interface RbacAuthorizerOptions {
  /** Told upstream's denial line for every request no rule allows (the caller decides the log level). */
  onNoOpinion?: (message: string) => void;
}

export class RbacAuthorizer {
  readonly resolver: RuleResolver;
  /** Allow reasons by the subject object that matched (each subject object belongs to one stored binding). */
  private readonly reasons = new WeakMap<Subject, string>();

  constructor(
    source: RbacSource,
    private readonly opts: RbacAuthorizerOptions = {},
  ) {
    this.resolver = new RuleResolver(source);
  }

  /** Synchronous: everything it reads is in memory. */
  authorize(a: Attributes): Decision {
    let reason = '';
    const errors: Error[] = [];
    this.resolver.visitRulesFor(a.user, a.namespace, (source, rule, error) => {
      if (error) {
        errors.push(error);
        return true;
      }
      if (rule && ruleAllows(a, rule)) {
        reason = this.reasons.get(source!.subject) ?? '';
        if (!reason) this.reasons.set(source!.subject, (reason = `RBAC: allowed by ${describeSource(source!)}`));
        return false;
      }
      return true;
    });
    if (reason) return { decision: 'Allow', reason };
    this.opts.onNoOpinion?.(denialMessage(a));
    return { decision: 'NoOpinion', reason: errors.length > 0 ? `RBAC: ${aggregateText(errors)}` : '' };
  }
}
