// The `scale` subresource of workloads (upstream's ScaleREST of deployments and replica sets): an autoscaling/v1
// Scale made from the object (its identity, spec.replicas, status.replicas and the selector as a string), and a
// written Scale turned back into a change of spec.replicas. The write is then an update of the workload like any
// other: its generation is bumped and it is validated as one.
import { apiErrors, fieldErrors, FieldPath, IS_NEGATIVE_ERROR_MSG, type KubeObject } from '@cl/apimachinery';
import { scale as scaleKind, type Scale } from '@cl/api';
import type { SubresourceView, TableConvertor } from '../strategy';
import { column } from './columns';
import { selectorOf, workload } from './workloads';

/** The Scale of a deployment or replica set. */
export function scaleOf(o: KubeObject): KubeObject & Scale {
  const w = workload(o);
  const meta = o.metadata ?? {};
  const selector = selectorOf(w.spec?.selector);
  if (!selector) throw apiErrors.badRequest(`invalid label selector of ${meta.name ?? ''}`);
  const replicas = w.spec?.replicas ?? 0;
  const selectorText = selector.toString();
  return {
    kind: scaleKind.kind,
    apiVersion: `${scaleKind.group}/${scaleKind.version}`,
    metadata: { name: meta.name, namespace: meta.namespace, uid: meta.uid, resourceVersion: meta.resourceVersion, creationTimestamp: meta.creationTimestamp },
    // Go omits a zero spec.replicas and an empty selector; status.replicas is always written.
    spec: replicas ? { replicas } : {},
    status: { replicas: w.status?.replicas ?? 0, ...(selectorText ? { selector: selectorText } : {}) },
  };
}

/**
 * The workload with the written Scale's replicas (0 when it has none, as upstream reads the Go zero value); the
 * Scale's resourceVersion, when set, is the update's precondition.
 */
export function applyScale(view: KubeObject, current: KubeObject): KubeObject {
  const s = view as KubeObject & Scale;
  const replicas = s.spec?.replicas ?? 0;
  // Upstream's ValidateScale, reported for the Scale.
  if (replicas < 0) throw apiErrors.invalid(scaleKind.group, scaleKind.kind, current.metadata?.name ?? '', [fieldErrors.invalid(FieldPath.root('spec', 'replicas'), replicas, IS_NEGATIVE_ERROR_MSG)]);
  const w = workload(current);
  w.spec = { ...w.spec, replicas };
  current.metadata = { ...current.metadata, resourceVersion: s.metadata?.resourceVersion };
  return current;
}

/** `kubectl get <workload> --subresource=scale`: DESIRED and AVAILABLE. */
export const scaleTable: TableConvertor = {
  columns: [column('Desired', 'integer', 'Desired number of replicas (spec.replicas).'), column('Available', 'integer', 'Observed number of replicas (status.replicas).')],
  cells: (o) => {
    const s = o as KubeObject & Scale;
    return [s.spec?.replicas ?? 0, s.status?.replicas ?? 0];
  },
};

/** deployments/scale and replicasets/scale. */
export const replicasScaleView: SubresourceView = { def: scaleKind, get: scaleOf, apply: applyScale, table: scaleTable };
