// rbac.authorization.k8s.io/v1 roles and bindings: stored and served (enforcing them is the RBAC authorizer's
// job, a later issue); rules need verbs, bindings a roleRef that never changes, printed as kubectl does.
import { fieldErrors, FieldPath, type FieldError, type KubeObject } from '@cl/apimachinery';
import type { Strategy } from '../strategy';
import { AGE, ageOf, column } from './columns';

interface Rule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  nonResourceURLs?: string[];
}

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

interface BindingFields {
  roleRef?: { apiGroup?: string; kind?: string; name?: string };
  subjects?: Subject[];
}

function validateRules(o: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, r] of (((o as { rules?: Rule[] }).rules ?? []) as Rule[]).entries()) {
    const p = FieldPath.root('rules').index(i);
    if (!r.verbs?.length) errs.push(fieldErrors.required(p.child('verbs'), 'verbs must contain at least one value'));
    if (namespaced && r.nonResourceURLs?.length) errs.push(fieldErrors.invalid(p.child('nonResourceURLs'), r.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    if (r.nonResourceURLs?.length && (r.resources?.length || r.apiGroups?.length)) {
      errs.push(fieldErrors.invalid(p.child('nonResourceURLs'), r.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    if (!r.nonResourceURLs?.length && !r.resources?.length) errs.push(fieldErrors.required(p.child('resources'), 'resource rules must supply at least one resource'));
  }
  return errs;
}

/** RBAC names are path segments (upstream's ValidateRBACName), so `system:node` is a valid role name. */
const pathSegmentName = (name: string, prefix: boolean): string[] => {
  if (!prefix && (name === '.' || name === '..')) return [`may not be '${name}'`];
  for (const bad of ['/', '%']) if (name.includes(bad)) return [`may not contain '${bad}'`];
  return [];
};

export const roleStrategy: Strategy = { nameValidator: pathSegmentName, validate: (o) => validateRules(o, true) };
export const clusterRoleStrategy: Strategy = { nameValidator: pathSegmentName, validate: (o) => validateRules(o, false) };

const SUBJECT_KINDS = ['ServiceAccount', 'User', 'Group'];

function validateBinding(o: KubeObject, namespaced: boolean): FieldError[] {
  const b = o as KubeObject & BindingFields;
  const errs: FieldError[] = [];
  const ref = FieldPath.root('roleRef');
  if (!b.roleRef?.name) errs.push(fieldErrors.required(ref.child('name')));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(b.roleRef?.kind ?? '')) errs.push(fieldErrors.notSupported(ref.child('kind'), b.roleRef?.kind ?? '', kinds));
  if (b.roleRef?.apiGroup !== 'rbac.authorization.k8s.io') errs.push(fieldErrors.notSupported(ref.child('apiGroup'), b.roleRef?.apiGroup ?? '', ['rbac.authorization.k8s.io']));
  for (const [i, s] of (b.subjects ?? []).entries()) {
    const p = FieldPath.root('subjects').index(i);
    if (!s.name) errs.push(fieldErrors.required(p.child('name')));
    if (!SUBJECT_KINDS.includes(s.kind ?? '')) errs.push(fieldErrors.notSupported(p.child('kind'), s.kind ?? '', SUBJECT_KINDS));
    if (s.kind === 'ServiceAccount' && !namespaced && !s.namespace) errs.push(fieldErrors.required(p.child('namespace')));
  }
  return errs;
}

function bindingStrategy(namespaced: boolean): Strategy {
  const subjects = (o: KubeObject, kind: string) =>
    ((o as BindingFields).subjects ?? [])
      .filter((s) => s.kind === kind)
      .map((s) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name}` : s.name))
      .join(', ');
  return {
    nameValidator: pathSegmentName,
    validate: (o) => validateBinding(o, namespaced),
    validateUpdate(o, old) {
      const errs = validateBinding(o, namespaced);
      const a = (o as BindingFields).roleRef;
      const b = (old as BindingFields).roleRef;
      if (JSON.stringify(a) !== JSON.stringify(b)) errs.push(fieldErrors.invalid('roleRef', a, 'cannot change roleRef'));
      return errs;
    },
    table: {
      columns: [
        column('Role', 'string', 'The role the binding grants'),
        AGE,
        column('Users', 'string', 'Users in the binding', 1),
        column('Groups', 'string', 'Groups in the binding', 1),
        column('ServiceAccounts', 'string', 'Service accounts in the binding', 1),
      ],
      cells: (o, now) => {
        const ref = (o as BindingFields).roleRef;
        return [`${ref?.kind ?? ''}/${ref?.name ?? ''}`, ageOf(o, now), subjects(o, 'User'), subjects(o, 'Group'), subjects(o, 'ServiceAccount')];
      },
    },
  };
}

export const roleBindingStrategy = bindingStrategy(true);
export const clusterRoleBindingStrategy = bindingStrategy(false);
