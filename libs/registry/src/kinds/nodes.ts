// Nodes as kube-apiserver's node registry treats them (pkg/registry/core/node): a create keeps the status the
// agent registers with; /status writes also apply label and annotation changes (the agent relies on it); taints
// are checked as upstream; `kubectl cordon` is spec.unschedulable.
import { fieldErrors, FieldPath, isQualifiedName, isValidLabelValue, type FieldError, type KubeObject } from '@cl/apimachinery';
import type { Strategy } from '../strategy';
import { nodeTable } from './node-printer';

interface Taint {
  key?: string;
  value?: string;
  effect?: string;
}

type Node = KubeObject & { spec?: { unschedulable?: boolean; taints?: Taint[]; podCIDR?: string; podCIDRs?: string[] }; status?: unknown };
const node = (o: KubeObject) => o as Node;
const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

function validateNode(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const [i, t] of (node(o).spec?.taints ?? []).entries()) {
    const p = FieldPath.root('spec', 'taints').index(i);
    if (!t.key) errs.push(fieldErrors.required(p.child('key')));
    else for (const m of isQualifiedName(t.key)) errs.push(fieldErrors.invalid(p.child('key'), t.key, m));
    if (t.value) for (const m of isValidLabelValue(t.value)) errs.push(fieldErrors.invalid(p.child('value'), t.value, m));
    if (!t.effect) errs.push(fieldErrors.required(p.child('effect')));
    else if (!EFFECTS.includes(t.effect)) errs.push(fieldErrors.notSupported(p.child('effect'), t.effect, EFFECTS));
    const id = `${t.key}:${t.effect}`;
    if (seen.has(id)) errs.push(fieldErrors.duplicate(p, `${t.key}=${t.value ?? ''}:${t.effect}`));
    seen.add(id);
  }
  return errs;
}

export const nodeStrategy: Strategy = {
  prepareForUpdate(o, old) {
    // The main resource leaves status alone.
    if (node(old).status === undefined) delete node(o).status;
    else node(o).status = node(old).status;
  },
  prepareForStatusUpdate(o, old) {
    // Status writes change status, labels and annotations (upstream's nodeStatusStrategy), nothing else.
    const labels = o.metadata?.labels;
    const annotations = o.metadata?.annotations;
    const status = node(o).status;
    for (const k of Object.keys(o)) if (k !== 'metadata') delete o[k];
    Object.assign(o, { ...old, metadata: { ...old.metadata, labels, annotations, resourceVersion: o.metadata?.resourceVersion } });
    node(o).status = status;
  },
  validate: validateNode,
  fields: { 'spec.unschedulable': (o) => String(node(o).spec?.unschedulable === true) },
  table: nodeTable,
};
