// ReplicaSets as kube-apiserver's registry treats them (pkg/registry/apps/replicaset): created with generation 1
// and an empty status (the replica set controller writes it through /status), the generation bumped by every spec
// change, the selector immutable, validated as upstream's ValidateReplicaSet, scaled through /scale, printed as
// `kubectl get replicasets`.
import { fieldErrors, FieldPath, jsonEqual, type FieldError, type KubeObject } from '@cl/apimachinery';
import type { ReplicaSet } from '@cl/api';
import { withStatusSubresource, type Strategy } from '../strategy';
import { AGE, ageOf, column } from './columns';
import { replicasScaleView } from './scale';
import { containerCells, nonNegative, selectorCell, validateSelectorAndTemplate, validateSelectorUnchanged } from './workloads';

const replicaSet = (o: KubeObject) => o as KubeObject & ReplicaSet;
const SPEC = FieldPath.root('spec');
const STATUS = FieldPath.root('status');

/** ValidateReplicaSetSpec, in upstream's order. */
export function validateReplicaSetSpec(o: KubeObject): FieldError[] {
  const spec = replicaSet(o).spec ?? {};
  return [...nonNegative(spec.replicas, SPEC.child('replicas')), ...nonNegative(spec.minReadySeconds, SPEC.child('minReadySeconds')), ...validateSelectorAndTemplate(spec)];
}

/** ValidateReplicaSetStatus: counts not negative nor above what contains them. */
function validateReplicaSetStatus(o: KubeObject): FieldError[] {
  const s = replicaSet(o).status ?? {};
  const errs: FieldError[] = [];
  for (const f of ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'] as const) errs.push(...nonNegative(s[f], STATUS.child(f)));
  const replicas = s.replicas ?? 0;
  const above = (f: 'fullyLabeledReplicas' | 'readyReplicas' | 'availableReplicas', limit: number, message: string) => {
    if ((s[f] ?? 0) > limit) errs.push(fieldErrors.invalid(STATUS.child(f), s[f] ?? 0, message));
  };
  above('fullyLabeledReplicas', replicas, 'cannot be greater than status.replicas');
  above('readyReplicas', replicas, 'cannot be greater than status.replicas');
  above('availableReplicas', replicas, 'cannot be greater than status.replicas');
  above('availableReplicas', s.readyReplicas ?? 0, 'cannot be greater than readyReplicas');
  return errs;
}

const replicaSetRules: Strategy = withStatusSubresource({
  prepareForCreate(o) {
    o.metadata!.generation = 1;
    replicaSet(o).status = {};
  },
  prepareForUpdate(o, old) {
    if (!jsonEqual(replicaSet(o).spec ?? {}, replicaSet(old).spec ?? {})) o.metadata!.generation = (old.metadata?.generation ?? 0) + 1;
  },
  validate: validateReplicaSetSpec,
  // Upstream runs the create validation and the update validation, both of which check the spec: an invalid spec
  // is reported twice, as kube-apiserver does.
  validateUpdate: (o, old) => [...validateReplicaSetSpec(o), ...validateReplicaSetSpec(o), ...validateSelectorUnchanged(o, old)],
  validateStatusUpdate: validateReplicaSetStatus,
  views: { scale: replicasScaleView },
  fields: { 'status.replicas': (o) => String(replicaSet(o).status?.replicas ?? 0) },
  table: {
    columns: [
      column('Desired', 'integer', 'Number of desired pods (spec.replicas).'),
      column('Current', 'integer', 'Number of pods the replica set has (status.replicas).'),
      column('Ready', 'integer', 'Number of its pods that are ready (status.readyReplicas).'),
      AGE,
      column('Containers', 'string', 'Names of each container in the template.', 1),
      column('Images', 'string', 'Images referenced by each container in the template.', 1),
      column('Selector', 'string', 'Label query over the pods of the replica set (spec.selector).', 1),
    ],
    cells(o, now) {
      const rs = replicaSet(o);
      return [rs.spec?.replicas ?? 0, rs.status?.replicas ?? 0, rs.status?.readyReplicas ?? 0, ageOf(o, now), ...containerCells(o), selectorCell(o)];
    },
  },
});

/** A status write resets the spec only (upstream's rsStatusStrategy): labels and annotations written with it are kept. */
export const replicaSetStrategy: Strategy = {
  ...replicaSetRules,
  prepareForStatusUpdate(o, old) {
    const { labels, annotations } = o.metadata ?? {};
    replicaSetRules.prepareForStatusUpdate!(o, old);
    const meta = o.metadata!;
    if (labels === undefined) delete meta.labels;
    else meta.labels = labels;
    if (annotations === undefined) delete meta.annotations;
    else meta.annotations = annotations;
  },
};
