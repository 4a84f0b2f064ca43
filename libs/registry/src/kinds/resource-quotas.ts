// ResourceQuotas as kube-apiserver's registry treats them (pkg/registry/core/resourcequota): created with an empty
// status (the quota controller fills it), spec and status written separately, scopes immutable, validated as
// upstream's ValidateResourceQuota, printed with each limit's `used/hard` in REQUEST or LIMIT.
import { fieldErrors, FieldPath, GoLiteral, parseQuantity, type FieldError, type KubeObject } from '@cl/apimachinery';
import type { ResourceQuota } from '@cl/api';
import { withStatusSubresource, type Strategy } from '../strategy';
import { AGE, ageOf, column } from './columns';
import { isStandardQuotaResourceName, quantityAt, validateQuotaQuantity, validateResourceQuotaResourceName } from '@cl/api';

type Requirement = { scopeName?: string; operator?: string; values?: string[] };
const rq = (o: KubeObject) => o as KubeObject & ResourceQuota;

export const QUOTA_SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'];
const POD_COUNT = new Set(['pods']);
const POD_COMPUTE = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);
const CONFLICTING_SCOPES = [
  ['BestEffort', 'NotBestEffort'],
  ['Terminating', 'NotTerminating'],
];

/** Upstream's IsResourceQuotaScopeValidForResource: pod scopes only make sense on pod counts and compute resources. */
export function scopeAppliesTo(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating':
    case 'NotTerminating':
    case 'NotBestEffort':
    case 'PriorityClass':
    case 'CrossNamespacePodAffinity':
      return POD_COUNT.has(resource) || POD_COMPUTE.has(resource);
    case 'BestEffort':
      return POD_COUNT.has(resource);
    default:
      return true;
  }
}

// Bad values as Go's %#v prints these types in upstream's messages.
const goStrings = (list: string[] | undefined, type: string) => (list ? `${type}{${list.map((s) => JSON.stringify(s)).join(', ')}}` : `${type}(nil)`);
const goScopes = (scopes: string[] | undefined) => new GoLiteral(goStrings(scopes, '[]core.ResourceQuotaScope'));
const goScopeSelector = (reqs: Requirement[]) =>
  new GoLiteral(
    `core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement{${reqs
      .map((r) => `core.ScopedResourceSelectorRequirement{ScopeName:${JSON.stringify(r.scopeName ?? '')}, Operator:${JSON.stringify(r.operator ?? '')}, Values:${goStrings(r.values, '[]string')}}`)
      .join(', ')}}}`,
  );

function validateResourceList(list: Record<string, unknown> | undefined, path: FieldPath, errs: FieldError[]) {
  for (const [name, raw] of Object.entries(list ?? {})) {
    const p = path.key(name);
    errs.push(...validateResourceQuotaResourceName(name, p));
    const q = quantityAt(raw, p, errs);
    if (q) errs.push(...validateQuotaQuantity(name, q, p));
  }
}

function validateScopes(spec: NonNullable<ResourceQuota['spec']>, errs: FieldError[]) {
  const scopes = spec.scopes ?? [];
  if (!scopes.length) return;
  const path = FieldPath.root('spec', 'scopes');
  const hard = Object.keys(spec.hard ?? {}).sort();
  for (const scope of scopes) {
    if (!QUOTA_SCOPES.includes(scope)) errs.push(fieldErrors.invalid(path, goScopes(spec.scopes), 'unsupported scope'));
    for (const k of hard) if (isStandardQuotaResourceName(k) && !scopeAppliesTo(scope, k)) errs.push(fieldErrors.invalid(path, goScopes(spec.scopes), 'unsupported scope applied to resource'));
  }
  for (const pair of CONFLICTING_SCOPES) if (pair.every((s) => scopes.includes(s))) errs.push(fieldErrors.invalid(path, goScopes(spec.scopes), 'conflicting scopes'));
}

const EXISTS_ONLY = ['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity'];

function validateScopeSelector(spec: NonNullable<ResourceQuota['spec']>, errs: FieldError[]) {
  if (!spec.scopeSelector) return;
  const reqs = (spec.scopeSelector.matchExpressions ?? []) as Requirement[];
  const path = FieldPath.root('spec', 'scopeSelector', 'matchExpressions');
  const hard = Object.keys(spec.hard ?? {}).sort();
  const names = new Set<string>();
  for (const r of reqs) {
    const scope = r.scopeName ?? '';
    if (!QUOTA_SCOPES.includes(scope)) errs.push(fieldErrors.invalid(path.child('scopeName'), scope, 'unsupported scope'));
    for (const k of hard) if (isStandardQuotaResourceName(k) && !scopeAppliesTo(scope, k)) errs.push(fieldErrors.invalid(path, goScopeSelector(reqs), 'unsupported scope applied to resource'));
    if (EXISTS_ONLY.includes(scope) && r.operator !== 'Exists') {
      errs.push(
        fieldErrors.invalid(
          path.child('operator'),
          r.operator ?? '',
          "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
        ),
      );
    }
    switch (r.operator) {
      case 'In':
      case 'NotIn':
        if (!r.values?.length) errs.push(fieldErrors.required(path.child('values'), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (r.values?.length) errs.push(fieldErrors.invalid(path.child('values'), r.values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
        break;
      default:
        errs.push(fieldErrors.invalid(path.child('operator'), r.operator ?? '', 'not a valid selector operator'));
    }
    names.add(scope);
  }
  for (const pair of CONFLICTING_SCOPES) if (pair.every((s) => names.has(s))) errs.push(fieldErrors.invalid(path, goScopes(spec.scopes), 'conflicting scopes'));
}

function validateSpec(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = rq(o).spec ?? {};
  validateResourceList(spec.hard, FieldPath.root('spec', 'hard'), errs);
  validateScopes(spec, errs);
  validateScopeSelector(spec, errs);
  return errs;
}

function validateStatus(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const status = rq(o).status ?? {};
  validateResourceList(status.hard, FieldPath.root('status', 'hard'), errs);
  validateResourceList(status.used, FieldPath.root('status', 'used'), errs);
  return errs;
}

const sameSet = (a: string[] = [], b: string[] = []) => new Set(a).size === new Set(b).size && a.every((x) => b.includes(x));

/** `used/hard` of each limit, requests and plain names in REQUEST, `limits.*` in LIMIT (upstream's printResourceQuota). */
export function quotaCells(o: KubeObject): [string, string] {
  const status = rq(o).status ?? {};
  const text = (raw: unknown) => {
    if (raw === undefined) return '0';
    try {
      return parseQuantity(raw).toString();
    } catch {
      return String(raw);
    }
  };
  const request: string[] = [];
  const limit: string[] = [];
  for (const name of Object.keys(status.hard ?? {}).sort()) {
    const cell = `${name}: ${text(status.used?.[name])}/${text(status.hard![name])}`;
    const pieces = name.split('.');
    (pieces.length > 1 && pieces[0] === 'limits' ? limit : request).push(cell);
  }
  return [request.join(', '), limit.join(', ')];
}

export const resourceQuotaStrategy: Strategy = withStatusSubresource({
  prepareForCreate(o) {
    // The quota controller computes the status; what a client sends is dropped.
    rq(o).status = {};
  },
  validate: (o) => [...validateSpec(o), ...validateStatus(o)],
  validateUpdate(o, old) {
    const errs = validateSpec(o);
    if (!sameSet(rq(o).spec?.scopes, rq(old).spec?.scopes)) errs.push(fieldErrors.invalid(FieldPath.root('spec', 'scopes'), goScopes(rq(o).spec?.scopes), 'field is immutable'));
    return errs;
  },
  validateStatusUpdate: (o) => validateStatus(o),
  table: {
    columns: [
      AGE,
      column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
      column('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
    ],
    cells: (o, now) => [ageOf(o, now), ...quotaCells(o)],
  },
});
