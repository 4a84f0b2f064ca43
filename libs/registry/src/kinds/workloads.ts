// What Deployments and ReplicaSets share (pkg/apis/apps/validation, pkg/printers): the label selector and the pod
// template they are checked against, with upstream's paths and messages, and the CONTAINERS / IMAGES / SELECTOR
// cells of `-o wide`. Bad values that upstream prints with Go's %#v are printed the same way.
import {
  FieldError,
  fieldErrors,
  FieldPath,
  GoLiteral,
  goQuote,
  isValidLabelValue,
  labelSelectorFromMeta,
  validateAnnotations,
  validateLabelName,
  validateLabels,
  IS_NEGATIVE_ERROR_MSG,
  type KubeObject,
  type LabelSelector,
} from '@cl/apimachinery';
import type { Deployment, PodTemplateSpec } from '@cl/api';
import { validatePodSpec } from './pod-validation';

/** metav1.LabelSelector as the kinds' schemas type it (every field optional). */
export type Selector = NonNullable<NonNullable<Deployment['spec']>['selector']>;

/** What both kinds' specs hold: desired replicas, a selector and a pod template. */
export interface WorkloadSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: Selector | null;
  template?: PodTemplateSpec;
}

export type Workload = KubeObject & { spec?: WorkloadSpec; status?: { replicas?: number } & Record<string, unknown> };
export const workload = (o: KubeObject) => o as Workload;

const SPEC = FieldPath.root('spec');

// ---- Go %#v of the values upstream puts in its messages ----

const goStrings = (list: readonly string[] | null | undefined) => (list ? `[]string{${list.map(goQuote).join(', ')}}` : '[]string(nil)');

/** `map[string]string{"app":"web"}` (keys sorted, as fmt prints maps), `map[string]string(nil)` when absent. */
export function goStringMap(map: Record<string, string> | null | undefined): GoLiteral {
  if (!map) return new GoLiteral('map[string]string(nil)');
  const entries = Object.keys(map)
    .sort()
    .map((k) => `${goQuote(k)}:${goQuote(map[k])}`);
  return new GoLiteral(`map[string]string{${entries.join(', ')}}`);
}

/** `v1.LabelSelector{MatchLabels:..., MatchExpressions:...}`, the selector as upstream's messages print it. */
export function goSelector(sel: Selector | null | undefined): GoLiteral {
  const exprs = sel?.matchExpressions;
  const requirements = exprs
    ? `[]v1.LabelSelectorRequirement{${exprs.map((r) => `v1.LabelSelectorRequirement{Key:${goQuote(r?.key ?? '')}, Operator:${goQuote(r?.operator ?? '')}, Values:${goStrings(r?.values)}}`).join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return new GoLiteral(`v1.LabelSelector{MatchLabels:${goStringMap(sel?.matchLabels).text}, MatchExpressions:${requirements}}`);
}

// ---- validation ----

export function nonNegative(value: number | null | undefined, path: FieldPath): FieldError[] {
  return value !== undefined && value !== null && value < 0 ? [fieldErrors.invalid(path, value, IS_NEGATIVE_ERROR_MSG)] : [];
}

/** metav1 ValidateLabelSelector (label values checked strictly, as workloads ask). */
export function validateLabelSelector(sel: Selector, path: FieldPath): FieldError[] {
  const errs = validateLabels(sel.matchLabels ?? undefined, path.child('matchLabels'));
  for (const [i, r] of (sel.matchExpressions ?? []).entries()) {
    const rp = path.child('matchExpressions').index(i);
    const values = r?.values ?? [];
    switch (r?.operator) {
      case 'In':
      case 'NotIn':
        if (!values.length) errs.push(fieldErrors.required(rp.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length) errs.push(fieldErrors.forbidden(rp.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(fieldErrors.invalid(rp.child('operator'), r?.operator ?? '', 'not a valid selector operator'));
    }
    errs.push(...validateLabelName(r?.key ?? '', rp.child('key')));
    for (const [j, v] of values.entries()) for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid(rp.child('values').index(j), v, msg));
  }
  return errs;
}

/** The selector as a label selector, or null when it cannot be one (metav1.LabelSelectorAsSelector fails). */
export function selectorOf(sel: Selector | null | undefined): LabelSelector | null {
  try {
    if (!sel) return labelSelectorFromMeta(sel);
    const matchExpressions = sel.matchExpressions?.map((r) => ({ key: r?.key ?? '', operator: r?.operator ?? '', values: r?.values }));
    return labelSelectorFromMeta({ matchLabels: sel.matchLabels, matchExpressions });
  } catch {
    return null;
  }
}

/** The pod spec checks of pods, at `<template>.spec` (upstream's ValidatePodSpec under ValidatePodTemplateSpec). */
function validateTemplatePodSpec(template: PodTemplateSpec, path: FieldPath): FieldError[] {
  const prefix = path.child('spec').toString();
  return validatePodSpec({ spec: template.spec } as KubeObject).map((e) => new FieldError(e.type, e.field.startsWith('spec') ? prefix + e.field.slice('spec'.length) : `${prefix}.${e.field}`, e.badValue, e.detail));
}

/** core ValidatePodTemplateSpec: labels (at `<template>.labels`, as upstream), annotations, the pod spec, no ephemeral containers. */
function validatePodTemplateSpec(template: PodTemplateSpec, path: FieldPath): FieldError[] {
  const meta = template.metadata ?? {};
  const errs = [...validateLabels(meta.labels ?? undefined, path.child('labels')), ...validateAnnotations(meta.annotations ?? undefined, path.child('annotations'))];
  errs.push(...validateTemplatePodSpec(template, path));
  if (template.spec?.ephemeralContainers?.length) errs.push(fieldErrors.forbidden(path.child('spec', 'ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  return errs;
}

/**
 * The selector and template rules of both kinds (ValidateDeploymentSpec / ValidateReplicaSetSpec, from the
 * selector on): a selector is required, valid and not empty, and the template's labels match it; the template is a
 * valid pod template whose pods restart Always and have no deadline.
 */
export function validateSelectorAndTemplate(spec: WorkloadSpec): FieldError[] {
  const errs: FieldError[] = [];
  const selectorPath = SPEC.child('selector');
  if (!spec.selector) errs.push(fieldErrors.required(selectorPath));
  else {
    errs.push(...validateLabelSelector(spec.selector, selectorPath));
    // Upstream's words for both kinds.
    if (Object.keys(spec.selector.matchLabels ?? {}).length + (spec.selector.matchExpressions ?? []).length === 0) errs.push(fieldErrors.invalid(selectorPath, goSelector(spec.selector), 'empty selector is invalid for deployment'));
  }
  const selector = selectorOf(spec.selector);
  if (!selector) {
    errs.push(fieldErrors.invalid(selectorPath, goSelector(spec.selector), 'invalid label selector'));
    return errs;
  }
  const template = spec.template ?? {};
  const path = SPEC.child('template');
  const labels = template.metadata?.labels;
  // A missing selector selects nothing, so no labels match it (upstream reports both).
  if (!selector.empty && !selector.matches(labels)) errs.push(fieldErrors.invalid(path.child('metadata', 'labels'), goStringMap(labels), '`selector` does not match template `labels`'));
  errs.push(...validatePodTemplateSpec(template, path));
  const restartPolicy = template.spec?.restartPolicy ?? '';
  if (restartPolicy !== 'Always') errs.push(fieldErrors.notSupported(path.child('spec', 'restartPolicy'), restartPolicy, ['Always']));
  if (template.spec?.activeDeadlineSeconds !== undefined && template.spec.activeDeadlineSeconds !== null) {
    errs.push(fieldErrors.forbidden(path.child('spec', 'activeDeadlineSeconds'), 'activeDeadlineSeconds in ReplicaSet is not Supported'));
  }
  return errs;
}

/** The selector cannot change after creation (apps/v1; upstream's ValidateImmutableField on spec.selector). */
export function validateSelectorUnchanged(o: KubeObject, old: KubeObject): FieldError[] {
  const next = workload(o).spec?.selector;
  const prev = workload(old).spec?.selector;
  return sameSelector(next, prev) ? [] : [fieldErrors.invalid(SPEC.child('selector'), goSelector(next), 'field is immutable')];
}

/**
 * Whether two selectors are the same. Upstream compares them as read back from protobuf storage, where an empty map
 * or list is no map or list; so do we.
 */
function sameSelector(a: Selector | null | undefined, b: Selector | null | undefined): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(sel: Selector | null | undefined): unknown {
  const labels = sel?.matchLabels ?? {};
  const exprs = (sel?.matchExpressions ?? []).map((r) => [r?.key ?? '', r?.operator ?? '', r?.values ?? []]);
  return [Object.keys(labels).sort().map((k) => [k, labels[k]]), exprs, !!sel];
}

// ---- printing ----

/** CONTAINERS and IMAGES of the template, comma-separated (upstream's layoutContainerCells). */
export function containerCells(o: KubeObject): [string, string] {
  const containers = workload(o).spec?.template?.spec?.containers ?? [];
  return [containers.map((c) => c?.name ?? '').join(','), containers.map((c) => c?.image ?? '').join(',')];
}

/** SELECTOR: the selector in its string form, `<invalid>` when it is not one. */
export function selectorCell(o: KubeObject): string {
  return selectorOf(workload(o).spec?.selector)?.toString() ?? '<invalid>';
}
