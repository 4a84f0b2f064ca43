// LimitRanger (upstream plugin/pkg/admission/limitranger): on pod create, containers without requests or limits
// get the defaults of the namespace's LimitRange Container items (and an annotation saying so); then every
// container, and the pod as a whole for Pod items, must keep within min, max and maxLimitRequestRatio, or the
// pod is refused (403) with upstream's messages. Pod updates and subresources are left alone, as upstream.
import { apiErrors, type KubeObject, type Quantity } from '@cl/apimachinery';
import type { LimitRangeItem } from '@cl/api';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission';
import type { ResourceStore } from '../resource-store';
import { podResourceTotals, resourceTotals, type ResourceTotals } from '@cl/api';

const ANNOTATION = 'kubernetes.io/limit-ranger';
/** How long a live lookup of an empty namespace is trusted while the watch cache has nothing (upstream: 30 s). */
const LIVE_LOOKUP_TTL_MS = 30_000;

interface Container {
  name?: string;
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
}
interface PodSpec {
  containers?: Container[];
  initContainers?: Container[];
}

const itemsOf = (lr: KubeObject) => ((lr as { spec?: { limits?: Array<LimitRangeItem | null> } }).spec?.limits ?? []).filter((i): i is LimitRangeItem => !!i);
const specOf = (pod: KubeObject) => ((pod as { spec?: PodSpec }).spec ?? {}) as PodSpec;

// ---- defaults ----

/** The defaults of a LimitRange's Container items (later items win, as upstream's loop). */
function containerDefaults(lr: KubeObject): { limits: Record<string, unknown>; requests: Record<string, unknown> } {
  const limits: Record<string, unknown> = {};
  const requests: Record<string, unknown> = {};
  for (const item of itemsOf(lr)) {
    if (item.type !== 'Container') continue;
    Object.assign(requests, item.defaultRequest ?? {});
    Object.assign(limits, item.default ?? {});
  }
  return { limits, requests };
}

/** Sets what a container lacks; returns the annotation parts naming what was set. */
function defaultContainer(c: Container, defaults: { limits: Record<string, unknown>; requests: Record<string, unknown> }, kind: string): string[] {
  const setLimits = Object.keys(defaults.limits).filter((k) => c.resources?.limits?.[k] === undefined);
  const setRequests = Object.keys(defaults.requests).filter((k) => c.resources?.requests?.[k] === undefined);
  // Empty lists are not written (upstream's are, but omitempty drops them from every response).
  if (setLimits.length) {
    const limits = ((c.resources ??= {}).limits ??= {});
    for (const k of setLimits) limits[k] = defaults.limits[k];
  }
  if (setRequests.length) {
    const requests = ((c.resources ??= {}).requests ??= {});
    for (const k of setRequests) requests[k] = defaults.requests[k];
  }
  const parts: string[] = [];
  if (setRequests.length) parts.push(`${setRequests.sort().join(', ')} request for ${kind} ${c.name ?? ''}`);
  if (setLimits.length) parts.push(`${setLimits.sort().join(', ')} limit for ${kind} ${c.name ?? ''}`);
  return parts;
}

/** Upstream's PodMutateLimitFunc: defaults from one LimitRange, recorded in the kubernetes.io/limit-ranger annotation. */
export function applyLimitRangeDefaults(lr: KubeObject, pod: KubeObject): void {
  const defaults = containerDefaults(lr);
  const spec = specOf(pod);
  const parts = [
    ...(spec.containers ?? []).flatMap((c) => (c ? defaultContainer(c, defaults, 'container') : [])),
    ...(spec.initContainers ?? []).flatMap((c) => (c ? defaultContainer(c, defaults, 'init container') : [])),
  ];
  if (parts.length) (pod.metadata!.annotations ??= {})[ANNOTATION] = `LimitRanger plugin set: ${parts.join('; ')}`;
}

// ---- constraints ----

/** Upstream compares at milli precision (its values fit; ours are exact at any size). */
const milli = (q: Quantity) => q.milliValue();

function minConstraint(type: string, name: string, enforced: Quantity, requests: ResourceTotals, limits: ResourceTotals): string | null {
  const req = requests.get(name);
  const lim = limits.get(name);
  if (!req) return `minimum ${name} usage per ${type} is ${enforced}.  No request is specified`;
  if (milli(req) < milli(enforced)) return `minimum ${name} usage per ${type} is ${enforced}, but request is ${req}`;
  if (lim && milli(lim) < milli(enforced)) return `minimum ${name} usage per ${type} is ${enforced}, but limit is ${lim}`;
  return null;
}

function maxConstraint(type: string, name: string, enforced: Quantity, requests: ResourceTotals, limits: ResourceTotals): string | null {
  const req = requests.get(name);
  const lim = limits.get(name);
  if (!lim) return `maximum ${name} usage per ${type} is ${enforced}.  No limit is specified`;
  if (milli(lim) > milli(enforced)) return `maximum ${name} usage per ${type} is ${enforced}, but limit is ${lim}`;
  if (req && milli(req) > milli(enforced)) return `maximum ${name} usage per ${type} is ${enforced}, but request is ${req}`;
  return null;
}

function ratioConstraint(type: string, name: string, enforced: Quantity, requests: ResourceTotals, limits: ResourceTotals): string | null {
  const req = requests.get(name);
  const lim = limits.get(name);
  const prefix = `${name} max limit to request ratio per ${type} is ${enforced}`;
  if (!req || milli(req) === 0n) return `${prefix}, but no request is specified or request is 0`;
  if (!lim || milli(lim) === 0n) return `${prefix}, but no limit is specified or limit is 0`;
  const ratio = Number(milli(lim)) / Number(milli(req));
  if (ratio * 1000 > Number(milli(enforced))) return `${prefix}, but provided ratio is ${ratio.toFixed(6)}`;
  return null;
}

const CONSTRAINTS = [
  ['min', minConstraint],
  ['max', maxConstraint],
  ['maxLimitRequestRatio', ratioConstraint],
] as const;

function checkItem(item: LimitRangeItem, type: string, requests: ResourceTotals, limits: ResourceTotals, errs: string[]) {
  for (const [field, check] of CONSTRAINTS) {
    for (const [name, enforced] of resourceTotals(item[field])) {
      const err = check(type, name, enforced, requests, limits);
      if (err) errs.push(err);
    }
  }
}

/** Upstream's PodValidateLimitFunc: the messages of every violated constraint of one LimitRange. */
export function limitRangeViolations(lr: KubeObject, pod: KubeObject): string[] {
  const errs: string[] = [];
  const spec = specOf(pod);
  for (const item of itemsOf(lr)) {
    if (item.type === 'Container') {
      for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
        if (c) checkItem(item, 'Container', resourceTotals(c.resources?.requests), resourceTotals(c.resources?.limits), errs);
      }
    }
    if (item.type === 'Pod') checkItem(item, 'Pod', podResourceTotals(pod, 'requests'), podResourceTotals(pod, 'limits'), errs);
  }
  return errs;
}

/** Go's utilerrors.NewAggregate(...).Error(): one message bare, several deduplicated in brackets. */
export function aggregateMessage(errs: readonly string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

// ---- the plugin ----

const handles = (a: AdmissionAttributes) => a.operation === 'CREATE' && a.resource.group === '' && a.resource.resource === 'pods' && a.subresource === '' && !!a.object;

export function limitRanger(limitRanges: ResourceStore): AdmissionPlugin {
  const liveLookups = new Map<string, { expires: number; items: KubeObject[] }>();
  /** The namespace's LimitRanges by name: the watch cache, or (when it has none) a recent live list. */
  const rangesIn = async (namespace: string): Promise<KubeObject[]> => {
    let items = limitRanges.cache.list(limitRanges.key(namespace, '')).items.map((i) => i.object);
    if (!items.length) {
      // A LimitRange created a moment ago may not have reached the cache yet.
      let entry = liveLookups.get(namespace);
      if (!entry || entry.expires < Date.now()) {
        entry = { expires: Date.now() + LIVE_LOOKUP_TTL_MS, items: (await limitRanges.list(namespace)).items };
        liveLookups.set(namespace, entry);
        if (liveLookups.size > 10_000) liveLookups.delete(liveLookups.keys().next().value!);
      }
      items = entry.items;
    }
    return [...items].sort((x, y) => (x.metadata?.name ?? '').localeCompare(y.metadata?.name ?? ''));
  };
  return {
    name: 'LimitRanger',
    async mutate(a) {
      if (!handles(a)) return;
      for (const lr of await rangesIn(a.namespace)) applyLimitRangeDefaults(lr, a.object!);
    },
    async validate(a) {
      if (!handles(a)) return;
      for (const lr of await rangesIn(a.namespace)) {
        const errs = limitRangeViolations(lr, a.object!);
        if (errs.length) throw apiErrors.forbidden(a.resource, a.name, aggregateMessage(errs));
      }
    },
  };
}
