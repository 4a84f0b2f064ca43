// Pods as kube-apiserver's pod registry treats them (pkg/registry/core/pod): created Pending with generation 1,
// the spec mostly immutable, status written through /status, bound once through /binding, evicted through
// /eviction, and deleted gracefully while a node runs them.
import { apiErrors, fieldErrors, FieldPath, metaTime, statusSuccess, type DeleteOptions, type FieldError, type KubeObject } from '@cl/apimachinery';
import type { ActionContext, Strategy } from '../strategy';
import { withStatusSubresource } from '../strategy';
import { jsonEqual } from '@cl/apimachinery';
import { podTable, type PodShape } from './pod-printer';
import { qosClass } from '@cl/api';
import { validatePodCreate, validatePodSpec } from './pod-validation';

type Pod = KubeObject & PodShape & { spec?: Record<string, unknown>; status?: Record<string, unknown> };
const pod = (o: KubeObject) => o as Pod;
const spec = (o: KubeObject) => (pod(o).spec ?? {}) as Record<string, unknown>;

const UPDATABLE =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** What an update may change (upstream's ValidatePodUpdate): images, activeDeadlineSeconds, added tolerations, a negative grace period to 1. */
function validatePodUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const next = structuredClone(spec(o)) as Record<string, unknown> & { containers?: Array<Record<string, unknown>>; initContainers?: Array<Record<string, unknown>>; tolerations?: unknown[] };
  const prev = spec(old) as typeof next;
  const errs = validatePodSpec(o);
  // Blank out what may change, then the rest must be equal.
  const images = (list: Array<Record<string, unknown>> | undefined, from: Array<Record<string, unknown>> | undefined) =>
    list?.map((c, i) => (from?.[i] ? { ...c, image: from[i].image } : c));
  next.containers = images(next.containers, prev.containers);
  next.initContainers = images(next.initContainers, prev.initContainers);
  next.activeDeadlineSeconds = prev.activeDeadlineSeconds;
  const oldTolerations = prev.tolerations ?? [];
  const kept = oldTolerations.every((t) => (next.tolerations ?? []).some((n) => jsonEqual(n, t)));
  if (kept) next.tolerations = prev.tolerations;
  if ((prev.terminationGracePeriodSeconds as number) < 0 && next.terminationGracePeriodSeconds === 1) next.terminationGracePeriodSeconds = prev.terminationGracePeriodSeconds;
  if (prev.activeDeadlineSeconds !== undefined && spec(o).activeDeadlineSeconds === undefined) errs.push(fieldErrors.invalid(FieldPath.root('spec', 'activeDeadlineSeconds'), null, 'must not update from a positive integer to nil value'));
  if (!jsonEqual(next, prev)) errs.push(fieldErrors.forbidden('spec', UPDATABLE));
  return errs;
}

/** POST pods/<name>/binding: sets spec.nodeName once (409 if already bound) and the PodScheduled condition. */
async function bind(ctx: ActionContext) {
  const b = ctx.body as { metadata?: { name?: string }; target?: { kind?: string; name?: string } } | null;
  const target = b?.target?.name;
  if (!target) throw apiErrors.invalid('', 'Binding', ctx.name, [fieldErrors.required(FieldPath.root('target', 'name'))]);
  if (b?.target?.kind && b.target.kind !== 'Node') throw apiErrors.invalid('', 'Binding', ctx.name, [fieldErrors.notSupported(FieldPath.root('target', 'kind'), b.target.kind, ['Node'])]);
  if (b?.metadata?.name && b.metadata.name !== ctx.name) throw apiErrors.badRequest('the name of the binding does not match the name of the pod');
  await ctx.update((current) => {
    const p = pod(current);
    const nodeName = (p.spec as { nodeName?: string } | undefined)?.nodeName;
    if (p.metadata?.deletionTimestamp) throw apiErrors.conflict({ group: '', resource: 'pods/binding' }, ctx.name, `pod ${ctx.name} is being deleted, cannot be assigned to a host`);
    if (nodeName) throw apiErrors.conflict({ group: '', resource: 'pods/binding' }, ctx.name, `pod ${ctx.name} is already assigned to node "${nodeName}"`);
    const status = { ...(p.status ?? {}) } as { conditions?: Array<Record<string, unknown>> };
    const conditions = (status.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
    conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: metaTime() });
    return { ...p, spec: { ...p.spec, nodeName: target }, status: { ...status, conditions } };
  }, 'binding');
  return { code: 201, body: { ...statusSuccess(), code: 201 } };
}

/** POST pods/<name>/eviction: deletes the pod with the eviction's delete options (PodDisruptionBudgets come later). */
async function evict(ctx: ActionContext) {
  const e = ctx.body as { deleteOptions?: DeleteOptions } | null;
  await ctx.delete(e?.deleteOptions ?? {});
  return { code: 201, body: { ...statusSuccess(), code: 201 } };
}

const statusField = (name: string) => (o: KubeObject) => String((pod(o).status as Record<string, unknown> | undefined)?.[name] ?? '');
const specField = (name: string) => (o: KubeObject) => String(spec(o)[name] ?? '');

export const podStrategy: Strategy = withStatusSubresource({
  prepareForCreate(o) {
    o.metadata!.generation = 1;
    pod(o).status = { phase: 'Pending', qosClass: qosClass(o) };
  },
  prepareForUpdate(o, old) {
    // Any spec change bumps the generation (1.33).
    if (!jsonEqual(spec(o), spec(old))) o.metadata!.generation = (old.metadata?.generation ?? 1) + 1;
  },
  prepareForStatusUpdate(o, old) {
    // The status writer cannot move the pod to another node or change its metadata beyond what it read.
    o.metadata = { ...old.metadata, resourceVersion: o.metadata?.resourceVersion };
  },
  // Also run for POST subresources (binding); only a create reaches it without a resourceVersion yet.
  validate: (o) => [...validatePodSpec(o), ...(o.metadata?.resourceVersion ? [] : validatePodCreate(o))],
  validateUpdate: validatePodUpdate,
  validateStatusUpdate(o) {
    const phase = (pod(o).status as { phase?: string } | undefined)?.phase;
    const phases = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'];
    return phase && !phases.includes(phase) ? [fieldErrors.notSupported(FieldPath.root('status', 'phase'), phase, phases)] : [];
  },
  gracePeriod(o, options) {
    const p = pod(o);
    const phase = (p.status as { phase?: string } | undefined)?.phase;
    // Nothing runs an unbound or finished pod, so it goes at once (upstream's CheckGracefulDelete).
    if (!spec(o).nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
    const fromSpec = spec(o).terminationGracePeriodSeconds as number | undefined;
    const grace = options.gracePeriodSeconds ?? fromSpec ?? 30;
    return Math.max(0, grace);
  },
  actions: { binding: bind, eviction: evict },
  returnDeletedObject: true,
  // As upstream's NodeNameTriggerFunc: every node agent watches its own pods.
  watchIndexField: 'spec.nodeName',
  fields: {
    'spec.nodeName': specField('nodeName'),
    'spec.restartPolicy': specField('restartPolicy'),
    'spec.schedulerName': specField('schedulerName'),
    'spec.serviceAccountName': specField('serviceAccountName'),
    'spec.hostNetwork': (o) => String(spec(o).hostNetwork === true),
    'status.phase': statusField('phase'),
    'status.podIP': statusField('podIP'),
    'status.podIPs': (o) => ((pod(o).status as { podIPs?: Array<{ ip?: string }> } | undefined)?.podIPs ?? []).map((p) => p.ip).join(','),
    'status.nominatedNodeName': statusField('nominatedNodeName'),
  },
  table: podTable,
});
