// Quota evaluation shared by the ResourceQuota admission plugin and the quota controller, as upstream's
// (apiserver/pkg/quota/v1, pkg/quota/v1/evaluator/core, plugin resourcequota CheckRequest): which quota names an
// object uses and how much, which quotas match it (resource names and scopes), what a pod must declare when a
// quota limits cpu or memory, and whether a create fits every matching quota.
import { type GroupResource, type KubeObject, parseQuantity } from '@cl/apimachinery';
import { addInto, podResourceTotals, resourceTotals, type ResourceTotals } from './pod-resources';
import { isExtendedResourceName, isNativeResource } from './resource-names';
import { qosClass } from './qos';

export interface ScopeRequirement {
  scopeName?: string;
  operator?: string;
  values?: string[];
}

export interface QuotaObject extends KubeObject {
  spec?: { hard?: Record<string, unknown>; scopes?: string[]; scopeSelector?: { matchExpressions?: ScopeRequirement[] } };
  status?: { hard?: Record<string, unknown>; used?: Record<string, unknown> };
}

/** What quota needs to know of one resource (upstream's quota.Evaluator, without the informer plumbing). */
export interface QuotaEvaluator {
  resource: GroupResource;
  /** The quota resource names among `names` this evaluator accounts for. */
  matchingResources(names: readonly string[]): string[];
  /** Whether an object is in a quota scope. */
  matchesScope(scope: ScopeRequirement, object: KubeObject): boolean;
  /** What the object uses of each quota resource; `now` decides whether a pod's grace period has run out. */
  usage(object: KubeObject, now: number): ResourceTotals;
  /** Why the object cannot be admitted under a quota that limits `required`, or null. */
  constraints(required: readonly string[], object: KubeObject): string | null;
}

const ONE = parseQuantity('1');
const ZERO = parseQuantity('0');

// ---- object counts ----

/** `count/<resource>` or `count/<resource>.<group>` (upstream's ObjectCountQuotaResourceNameFor). */
export const objectCountName = (gr: GroupResource) => (gr.group ? `count/${gr.resource}.${gr.group}` : `count/${gr.resource}`);

/** The names quotas counted these resources under before `count/*` existed. */
const LEGACY_COUNT_NAMES: Record<string, string> = { configmaps: 'configmaps', resourcequotas: 'resourcequotas', replicationcontrollers: 'replicationcontrollers', secrets: 'secrets' };

/** Resources quota never counts (upstream's ignored resources that this server serves). */
const IGNORED = new Set(['/events']);

function objectCountEvaluator(gr: GroupResource): QuotaEvaluator {
  const names = [objectCountName(gr), ...(gr.group === '' && LEGACY_COUNT_NAMES[gr.resource] ? [LEGACY_COUNT_NAMES[gr.resource]] : [])];
  return {
    resource: gr,
    matchingResources: (input) => input.filter((n) => names.includes(n)),
    // A quota with scopes counts pods only.
    matchesScope: () => false,
    usage: () => new Map(names.map((n) => [n, ONE])),
    constraints: () => null,
  };
}

// ---- pods ----

const POD_RESOURCES = [
  'count/pods', 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods',
];
const POD_RESOURCE_PREFIXES = ['hugepages-', 'requests.hugepages-'];
/** Upstream's regret: a quota on these makes every container declare them. No more may be added. */
const MUST_DECLARE = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

interface PodFields {
  metadata?: KubeObject['metadata'];
  spec?: {
    containers?: Array<{ name?: string; resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } } | null>;
    initContainers?: Array<{ name?: string; resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } } | null>;
    activeDeadlineSeconds?: number;
    priorityClassName?: string;
    affinity?: { podAffinity?: AffinityRules; podAntiAffinity?: AffinityRules };
  };
  status?: { phase?: string; qosClass?: string };
}
interface AffinityTerm {
  namespaces?: string[];
  namespaceSelector?: unknown;
}
interface AffinityRules {
  requiredDuringSchedulingIgnoredDuringExecution?: AffinityTerm[];
  preferredDuringSchedulingIgnoredDuringExecution?: Array<{ podAffinityTerm?: AffinityTerm }>;
}

const podOf = (o: KubeObject) => o as KubeObject & PodFields;

/** Upstream's podComputeUsageHelper: the quota names a set of requests and limits charges. */
function computeUsage(requests: ResourceTotals, limits: ResourceTotals): ResourceTotals {
  const out: ResourceTotals = new Map([['pods', ONE]]);
  for (const name of ['cpu', 'memory', 'ephemeral-storage']) {
    const r = requests.get(name);
    if (r) {
      out.set(name, r);
      out.set(`requests.${name}`, r);
    }
    const l = limits.get(name);
    if (l) out.set(`limits.${name}`, l);
  }
  for (const [name, r] of requests) {
    if (name.startsWith('hugepages-')) {
      out.set(name, r);
      out.set(`requests.${name}`, r);
    }
    if (isExtendedResourceName(name)) out.set(`requests.${name}`, r);
  }
  return out;
}

/** Upstream's QuotaV1Pod: finished pods, and pods past their deletion grace period, use no compute quota. */
export function podCountsForCompute(pod: KubeObject, now: number): boolean {
  const p = podOf(pod);
  if (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') return false;
  const deletion = p.metadata?.deletionTimestamp;
  const grace = p.metadata?.deletionGracePeriodSeconds;
  if (deletion && grace !== undefined && grace !== null && now > Date.parse(deletion) + grace * 1000) return false;
  return true;
}

const isTerminating = (pod: KubeObject) => {
  const d = podOf(pod).spec?.activeDeadlineSeconds;
  return d !== undefined && d !== null && d >= 0;
};
const isBestEffort = (pod: KubeObject) => (podOf(pod).status?.qosClass || qosClass(pod)) === 'BestEffort';

function usesCrossNamespaceAffinity(pod: KubeObject): boolean {
  const affinity = podOf(pod).spec?.affinity;
  const cross = (t: AffinityTerm | undefined) => !!t && ((t.namespaces?.length ?? 0) > 0 || (t.namespaceSelector !== undefined && t.namespaceSelector !== null));
  for (const rules of [affinity?.podAffinity, affinity?.podAntiAffinity]) {
    if (rules?.requiredDuringSchedulingIgnoredDuringExecution?.some(cross)) return true;
    if (rules?.preferredDuringSchedulingIgnoredDuringExecution?.some((w) => cross(w?.podAffinityTerm))) return true;
  }
  return false;
}

/** A PriorityClass scope selector: a label selector on the one label `PriorityClass=<the pod's class>`. */
function priorityClassMatches(scope: ScopeRequirement, pod: KubeObject): boolean {
  const name = podOf(pod).spec?.priorityClassName ?? '';
  const values = scope.values ?? [];
  switch (scope.operator) {
    case 'Exists':
      return name !== '';
    case 'DoesNotExist':
      return name === '';
    case 'In':
      return name !== '' && values.includes(name);
    case 'NotIn':
      return name === '' || !values.includes(name);
    default:
      return false;
  }
}

export function podMatchesScope(scope: ScopeRequirement, pod: KubeObject): boolean {
  switch (scope.scopeName) {
    case 'Terminating':
      return isTerminating(pod);
    case 'NotTerminating':
      return !isTerminating(pod);
    case 'BestEffort':
      return isBestEffort(pod);
    case 'NotBestEffort':
      return !isBestEffort(pod);
    case 'PriorityClass':
      return priorityClassMatches(scope, pod);
    case 'CrossNamespacePodAffinity':
      return usesCrossNamespaceAffinity(pod);
    default:
      return false;
  }
}

/** Upstream's podEvaluator.Constraints: with cpu or memory under quota, every container must request or limit it. */
function podConstraints(required: readonly string[], pod: KubeObject): string | null {
  const requiredSet = required.filter((r) => MUST_DECLARE.has(r));
  if (!requiredSet.length) return null;
  const missing = new Map<string, Set<string>>();
  const spec = podOf(pod).spec ?? {};
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    if (!c) continue;
    const has = computeUsage(resourceTotals(c.resources?.requests), resourceTotals(c.resources?.limits));
    for (const r of requiredSet) {
      if (has.has(r)) continue;
      if (!missing.has(r)) missing.set(r, new Set());
      missing.get(r)!.add(c.name ?? '');
    }
  }
  if (!missing.size) return null;
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}

export const podEvaluator: QuotaEvaluator = {
  resource: { group: '', resource: 'pods' },
  matchingResources: (input) => [
    ...input.filter((n) => POD_RESOURCES.includes(n)),
    ...input.filter((n) => POD_RESOURCE_PREFIXES.some((p) => n.startsWith(p))),
    // Extended resources are limited as requests.<name> only.
    ...input.filter((n) => !isNativeResource(n) && n.startsWith('requests.')),
  ],
  matchesScope: podMatchesScope,
  usage(pod, now) {
    // Every stored pod counts in count/pods; only live ones in pods and compute.
    const out: ResourceTotals = new Map([['count/pods', ONE]]);
    if (!podCountsForCompute(pod, now)) return out;
    addInto(out, computeUsage(podResourceTotals(pod, 'requests', { overhead: true }), podResourceTotals(pod, 'limits', { overhead: true })));
    return out;
  },
  constraints: podConstraints,
};

const evaluators = new Map<string, QuotaEvaluator | undefined>();

/** The evaluator of a resource, or undefined when quota ignores it. */
export function evaluatorFor(gr: GroupResource): QuotaEvaluator | undefined {
  const key = `${gr.group}/${gr.resource}`;
  if (!evaluators.has(key)) evaluators.set(key, IGNORED.has(key) ? undefined : key === '/pods' ? podEvaluator : objectCountEvaluator(gr));
  return evaluators.get(key);
}

// ---- resource list arithmetic (upstream's quota helpers) ----

export function toResourceList(totals: ResourceTotals): Record<string, string> {
  return Object.fromEntries([...totals].map(([k, q]) => [k, q.toString()]));
}

function mask(list: ResourceTotals, names: Iterable<string>): ResourceTotals {
  const keep = new Set(names);
  return new Map([...list].filter(([k]) => keep.has(k)));
}

/** `a=1,b=2`, sorted by name (upstream's prettyPrint). */
export const prettyPrint = (list: ResourceTotals) =>
  [...list.keys()]
    .sort()
    .map((k) => `${k}=${list.get(k)!.toString()}`)
    .join(',');

/** The scopes of a quota as requirements: each of spec.scopes as Exists, then the scope selector's. */
export function quotaScopes(q: QuotaObject): ScopeRequirement[] {
  return [...(q.spec?.scopes ?? []).map((s) => ({ scopeName: s, operator: 'Exists' })), ...(q.spec?.scopeSelector?.matchExpressions ?? [])];
}

/** Whether a quota limits the object: it enforces one of the evaluator's names, and the object is in all its scopes. */
export function quotaMatches(evaluator: QuotaEvaluator, q: QuotaObject, object: KubeObject): boolean {
  if (!evaluator.matchingResources(Object.keys(q.status?.hard ?? {})).length) return false;
  return quotaScopes(q).every((s) => evaluator.matchesScope(s, object));
}

/** What a namespace's objects use of a quota's resources (upstream's CalculateUsageStats over every evaluator). */
export function quotaUsage(q: QuotaObject, objectsByEvaluator: ReadonlyArray<[QuotaEvaluator, readonly KubeObject[]]>, now: number): ResourceTotals {
  const hard = Object.keys(q.spec?.hard ?? {});
  const used: ResourceTotals = new Map(hard.map((h) => [h, ZERO]));
  const scopes = quotaScopes(q);
  for (const [evaluator, objects] of objectsByEvaluator) {
    const names = evaluator.matchingResources(hard);
    if (!names.length) continue;
    for (const o of objects) {
      if (!scopes.every((s) => evaluator.matchesScope(s, o))) continue;
      addInto(used, mask(evaluator.usage(o, now), names));
    }
  }
  return used;
}

export class QuotaRefusal extends Error {}

/**
 * Upstream's CheckRequest for a create: the quotas with the object's usage added (only those that change), or a
 * QuotaRefusal with upstream's message when a matching quota is exceeded, lacks usage, or the pod does not
 * declare what the quota limits.
 */
export function checkCreate(quotas: readonly QuotaObject[], evaluator: QuotaEvaluator, object: KubeObject, now: number): Array<{ quota: QuotaObject; used: Record<string, string> }> {
  const interesting: QuotaObject[] = [];
  for (const q of quotas) {
    if (!quotaMatches(evaluator, q, object)) continue;
    const restricted = evaluator.matchingResources(Object.keys(q.status?.hard ?? {}));
    const why = evaluator.constraints(restricted, object);
    const name = q.metadata?.name ?? '';
    if (why) throw new QuotaRefusal(`failed quota: ${name}: ${why}`);
    const used = q.status?.used ?? {};
    if (restricted.some((r) => !(r in used))) throw new QuotaRefusal(`status unknown for quota: ${name}, resources: ${[...restricted].sort().join(',')}`);
    interesting.push(q);
  }
  const usage = evaluator.usage(object, now);
  const negative = [...usage].filter(([, v]) => v.sign() < 0).map(([k]) => k);
  if (negative.length) throw new QuotaRefusal(`quota usage is negative for resource(s): ${negative.sort().join(',')}`);
  const delta = new Map([...usage].filter(([, v]) => !v.isZero()));
  if (!delta.size) return [];
  const out: Array<{ quota: QuotaObject; used: Record<string, string> }> = [];
  for (const q of interesting) {
    const hard = resourceTotals(q.status?.hard);
    const used = resourceTotals(q.status?.used);
    const requested = mask(delta, hard.keys());
    if (!requested.size) continue;
    const next = new Map(used);
    addInto(next, requested);
    const exceeded = [...requested.keys()].filter((k) => hard.has(k) && next.get(k)!.cmp(hard.get(k)!) > 0);
    if (exceeded.length) {
      throw new QuotaRefusal(
        `exceeded quota: ${q.metadata?.name ?? ''}, requested: ${prettyPrint(mask(requested, exceeded))}, used: ${prettyPrint(mask(used, exceeded))}, limited: ${prettyPrint(mask(hard, exceeded))}`,
      );
    }
    // Untouched entries stay as written; the touched ones take their new totals.
    out.push({ quota: q, used: { ...(q.status?.used as Record<string, string> | undefined), ...toResourceList(mask(next, requested.keys())) } });
  }
  return out;
}
