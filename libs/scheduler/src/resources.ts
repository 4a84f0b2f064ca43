// Resource amounts in the units the scheduler compares (upstream's framework.Resource): cpu in millicores, memory
// and ephemeral storage in bytes, pods as a count, and "scalar" resources (extended resources such as
// `example.com/gpu`, `hugepages-*`, `attachable-volumes-*`) by name. Numbers rather than BigInt: 2^53 bytes is
// 8 PiB, far beyond any node, and the score formulas are integer arithmetic that fits.
import { parseQuantity } from '@cl/apimachinery';
import type { Container, Pod, ResourceList } from './types';

export interface Resources {
  milliCPU: number;
  memory: number;
  ephemeralStorage: number;
  allowedPodNumber: number;
  scalar: Readonly<Record<string, number>>;
}

export const NO_RESOURCES: Resources = Object.freeze({ milliCPU: 0, memory: 0, ephemeralStorage: 0, allowedPodNumber: 0, scalar: Object.freeze({}) });

/**
 * What the scoring plugins assume for a container that names no cpu or memory request (upstream's
 * schedutil.DefaultMilliCPURequest and DefaultMemoryRequest), so best-effort pods do not all land on one node.
 */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

/** Amounts by resource name, cpu already in millicores. */
export type Amounts = Map<string, number>;

/** One quantity in scheduler units; an unreadable one counts as 0 (the API server's validation keeps them out). */
function amount(name: string, q: string | number): number {
  try {
    const quantity = parseQuantity(q);
    return Number(name === 'cpu' ? quantity.milliValue() : quantity.value());
  } catch {
    return 0;
  }
}

export function amountsOf(list: ResourceList | undefined | null): Amounts {
  const out: Amounts = new Map();
  for (const [name, q] of Object.entries(list ?? {})) out.set(name, amount(name, q));
  return out;
}

const add = (to: Amounts, from: Amounts) => {
  for (const [name, v] of from) to.set(name, (to.get(name) ?? 0) + v);
};
const max = (to: Amounts, from: Amounts) => {
  for (const [name, v] of from) to.set(name, Math.max(to.get(name) ?? 0, v));
};

/** v1helper.IsExtendedResourceName, without re-validating the name (the API server did). */
function isExtendedResourceName(name: string): boolean {
  return name.includes('/') && !name.includes('kubernetes.io/') && !name.startsWith('requests.');
}

/** schedutil.IsScalarResourceName: the resources that are compared by name. */
export function isScalarResourceName(name: string): boolean {
  return isExtendedResourceName(name) || name.startsWith('hugepages-') || name.includes('kubernetes.io/') || name.startsWith('attachable-volumes-');
}

export function resourcesOf(amounts: Amounts): Resources {
  const scalar: Record<string, number> = {};
  for (const [name, v] of amounts) if (isScalarResourceName(name)) scalar[name] = v;
  return {
    milliCPU: amounts.get('cpu') ?? 0,
    memory: amounts.get('memory') ?? 0,
    ephemeralStorage: amounts.get('ephemeral-storage') ?? 0,
    allowedPodNumber: amounts.get('pods') ?? 0,
    scalar,
  };
}

export interface PodRequestOptions {
  /** Fill in cpu and memory for containers that name no request of them (the scoring plugins' non-zero requests). */
  defaultMissing?: boolean;
}

function containerRequests(c: Container, opts: PodRequestOptions): Amounts {
  const reqs = amountsOf(c.resources?.requests);
  if (opts.defaultMissing) {
    if (!reqs.has('cpu')) reqs.set('cpu', DEFAULT_MILLI_CPU_REQUEST);
    if (!reqs.has('memory')) reqs.set('memory', DEFAULT_MEMORY_REQUEST);
  }
  return reqs;
}

/**
 * A pod's effective requests (component-helpers' resource.PodRequests, 1.33): the sum of its containers, raised to
 * what any init container needs while it runs (it runs alongside the restartable init containers started before
 * it, whose requests also add to the sum), plus the pod overhead.
 */
export function podRequests(pod: Pod, opts: PodRequestOptions = {}): Amounts {
  const reqs: Amounts = new Map();
  for (const c of pod.spec?.containers ?? []) add(reqs, containerRequests(c, opts));
  const sidecars: Amounts = new Map();
  const initPeak: Amounts = new Map();
  for (const c of pod.spec?.initContainers ?? []) {
    const own = containerRequests(c, opts);
    if (c.restartPolicy === 'Always') {
      add(reqs, own);
      add(sidecars, own);
      max(initPeak, sidecars);
    } else {
      const whileRunning: Amounts = new Map(own);
      add(whileRunning, sidecars);
      max(initPeak, whileRunning);
    }
  }
  max(reqs, initPeak);
  add(reqs, amountsOf(pod.spec?.overhead));
  return reqs;
}

const requestsMemo = new WeakMap<Pod, Resources>();
const nonZeroRequestsMemo = new WeakMap<Pod, Resources>();

/**
 * `resourcesOf(podRequests(pod, opts))`, computed once per pod object (upstream computes it once per scheduling
 * cycle, in PreFilter/PreScore): the filters and scores ask for it at every node, and a node's info sums it over
 * the node's pods. Pod objects are the informers' (or the cache's own copies): a changed pod is a new object, so
 * a remembered value never goes stale. The result is shared: read it, do not change it.
 */
export function podResources(pod: Pod, opts: PodRequestOptions = {}): Resources {
  const memo = opts.defaultMissing ? nonZeroRequestsMemo : requestsMemo;
  let r = memo.get(pod);
  if (!r) {
    r = resourcesOf(podRequests(pod, opts));
    memo.set(pod, r);
  }
  return r;
}

/** The sum of several pods' resources (a node's requested). */
export function sumResources(list: readonly Resources[]): Resources {
  const out = { milliCPU: 0, memory: 0, ephemeralStorage: 0, allowedPodNumber: 0, scalar: {} as Record<string, number> };
  for (const r of list) {
    out.milliCPU += r.milliCPU;
    out.memory += r.memory;
    out.ephemeralStorage += r.ephemeralStorage;
    out.allowedPodNumber += r.allowedPodNumber;
    for (const name in r.scalar) out.scalar[name] = (out.scalar[name] ?? 0) + r.scalar[name];
  }
  return out;
}
