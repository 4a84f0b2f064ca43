// Deployments as kube-apiserver's registry treats them (pkg/registry/apps/deployment): created with generation 1
// and an empty status (the deployment controller writes it through /status), the generation bumped by every change
// of the spec or the annotations (which the controller copies to its ReplicaSets), the selector immutable,
// validated as upstream's ValidateDeployment, scaled through /scale, printed as `kubectl get deployments`.
import { fieldErrors, FieldPath, GoLiteral, goQuote, jsonEqual, type FieldError, type KubeObject } from '@cl/apimachinery';
import type { Deployment } from '@cl/api';
import { withStatusSubresource, type Strategy } from '../strategy';
import { AGE, ageOf, column } from './columns';
import { replicasScaleView } from './scale';
import { containerCells, nonNegative, selectorCell, validateSelectorAndTemplate, validateSelectorUnchanged } from './workloads';

type IntOrString = number | string;
const deployment = (o: KubeObject) => o as KubeObject & Deployment;
const SPEC = FieldPath.root('spec');
const STATUS = FieldPath.root('status');
const STRATEGIES = ['Recreate', 'RollingUpdate'];
const PERCENT = /^[0-9]+%$/;
const PERCENT_MESSAGE = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** intstr.IntOrString as upstream's messages print it (%#v). */
const goIntOrString = (v: IntOrString | null | undefined) =>
  new GoLiteral(typeof v === 'string' ? `intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(v)}}` : `intstr.IntOrString{Type:0, IntVal:${v ?? 0}, StrVal:""}`);

/** The number an int-or-percent stands for in upstream's zero checks: the percentage, the integer, or 0. */
function intOrPercentValue(v: IntOrString | null | undefined): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return 0;
  if (PERCENT.test(v)) return Number(v.slice(0, -1));
  return /^[+-]?\d+$/.test(v) ? Number(v) : 0;
}

/** ValidatePositiveIntOrPercent and IsNotMoreThan100Percent. */
function validateIntOrPercent(v: IntOrString | null | undefined, path: FieldPath): FieldError[] {
  if (typeof v === 'string') {
    if (!PERCENT.test(v)) return [fieldErrors.invalid(path, goIntOrString(v), PERCENT_MESSAGE)];
    return Number(v.slice(0, -1)) > 100 ? [fieldErrors.invalid(path, goIntOrString(v), 'must not be greater than 100%')] : [];
  }
  return nonNegative(v, path);
}

/** ValidateDeploymentStrategy: Recreate has no rollingUpdate; a RollingUpdate may not have 0 unavailable and 0 surge. */
function validateStrategy(strategy: NonNullable<NonNullable<Deployment['spec']>['strategy']>): FieldError[] {
  const path = SPEC.child('strategy');
  const rolling = strategy.rollingUpdate;
  switch (strategy.type) {
    case 'Recreate':
      return rolling ? [fieldErrors.forbidden(path.child('rollingUpdate'), "may not be specified when strategy `type` is 'Recreate'")] : [];
    case 'RollingUpdate': {
      if (!rolling) return [fieldErrors.required(path.child('rollingUpdate'), 'this should be defaulted and never be nil')];
      const rp = path.child('rollingUpdate');
      const errs = [...validateIntOrPercent(rolling.maxUnavailable, rp.child('maxUnavailable')), ...validateIntOrPercent(rolling.maxSurge, rp.child('maxSurge'))];
      if (intOrPercentValue(rolling.maxUnavailable) === 0 && intOrPercentValue(rolling.maxSurge) === 0) {
        errs.push(fieldErrors.invalid(rp.child('maxUnavailable'), goIntOrString(rolling.maxUnavailable), 'may not be 0 when `maxSurge` is 0'));
      }
      return errs;
    }
    default: {
      const ru = rolling ? '&apps.RollingUpdateDeployment{...}' : '(*apps.RollingUpdateDeployment)(nil)';
      return [fieldErrors.notSupported(path, new GoLiteral(`apps.DeploymentStrategy{Type:${goQuote(strategy.type ?? '')}, RollingUpdate:${ru}}`), STRATEGIES)];
    }
  }
}

/** ValidateDeploymentSpec, in upstream's order. */
export function validateDeploymentSpec(o: KubeObject): FieldError[] {
  const spec = deployment(o).spec ?? {};
  const errs = [...nonNegative(spec.replicas, SPEC.child('replicas')), ...validateSelectorAndTemplate(spec)];
  errs.push(...validateStrategy(spec.strategy ?? {}));
  errs.push(...nonNegative(spec.minReadySeconds, SPEC.child('minReadySeconds')));
  errs.push(...nonNegative(spec.revisionHistoryLimit, SPEC.child('revisionHistoryLimit')));
  const deadline = spec.progressDeadlineSeconds;
  if (deadline !== undefined && deadline !== null) {
    errs.push(...nonNegative(deadline, SPEC.child('progressDeadlineSeconds')));
    if (deadline <= (spec.minReadySeconds ?? 0)) errs.push(fieldErrors.invalid(SPEC.child('progressDeadlineSeconds'), deadline, 'must be greater than minReadySeconds'));
  }
  return errs;
}

/** ValidateDeploymentStatusUpdate: counts not negative nor above what contains them; collisionCount never decreases. */
function validateDeploymentStatus(o: KubeObject, old: KubeObject): FieldError[] {
  const s = deployment(o).status ?? {};
  const errs: FieldError[] = [];
  for (const f of ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'collisionCount'] as const) errs.push(...nonNegative(s[f], STATUS.child(f)));
  const replicas = s.replicas ?? 0;
  const above = (f: 'updatedReplicas' | 'readyReplicas' | 'availableReplicas', limit: number, message: string) => {
    if ((s[f] ?? 0) > limit) errs.push(fieldErrors.invalid(STATUS.child(f), s[f] ?? 0, message));
  };
  above('updatedReplicas', replicas, 'cannot be greater than status.replicas');
  above('readyReplicas', replicas, 'cannot be greater than status.replicas');
  above('availableReplicas', replicas, 'cannot be greater than status.replicas');
  above('availableReplicas', s.readyReplicas ?? 0, 'cannot be greater than readyReplicas');
  const before = deployment(old).status?.collisionCount;
  if (before !== undefined && before !== null && (s.collisionCount ?? 0) < before) errs.push(fieldErrors.invalid(STATUS.child('collisionCount'), s.collisionCount ?? 0, 'cannot be decremented'));
  return errs;
}

const deploymentRules: Strategy = withStatusSubresource({
  prepareForCreate(o) {
    o.metadata!.generation = 1;
    deployment(o).status = {};
  },
  prepareForUpdate(o, old) {
    // Annotations count too: the controller copies them to the ReplicaSets.
    if (!jsonEqual(deployment(o).spec ?? {}, deployment(old).spec ?? {}) || !jsonEqual(o.metadata?.annotations ?? {}, old.metadata?.annotations ?? {})) {
      o.metadata!.generation = (old.metadata?.generation ?? 0) + 1;
    }
  },
  validate: validateDeploymentSpec,
  validateUpdate: (o, old) => [...validateDeploymentSpec(o), ...validateSelectorUnchanged(o, old)],
  validateStatusUpdate: validateDeploymentStatus,
  views: { scale: replicasScaleView },
  table: {
    columns: [
      column('Ready', 'string', 'Ready pods of the desired ones.'),
      column('Up-to-date', 'string', 'Pods made from the current template (status.updatedReplicas).'),
      column('Available', 'string', 'Pods available to serve (status.availableReplicas).'),
      AGE,
      column('Containers', 'string', 'Names of each container in the template.', 1),
      column('Images', 'string', 'Images referenced by each container in the template.', 1),
      column('Selector', 'string', 'Label query over the pods of the deployment (spec.selector).', 1),
    ],
    cells(o, now) {
      const d = deployment(o);
      const status = d.status ?? {};
      return [`${status.readyReplicas ?? 0}/${d.spec?.replicas ?? 0}`, status.updatedReplicas ?? 0, status.availableReplicas ?? 0, ageOf(o, now), ...containerCells(o), selectorCell(o)];
    },
  },
});

/**
 * A status write resets the spec and the labels only (upstream's deploymentStatusStrategy): the deployment
 * controller records the revision annotation through /status, so that it bumps no generation.
 */
export const deploymentStrategy: Strategy = {
  ...deploymentRules,
  prepareForStatusUpdate(o, old) {
    const annotations = o.metadata?.annotations;
    deploymentRules.prepareForStatusUpdate!(o, old);
    if (annotations === undefined) delete o.metadata!.annotations;
    else o.metadata!.annotations = annotations;
  },
};
