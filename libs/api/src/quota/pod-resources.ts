// A pod's effective requests and limits, as upstream sums them (component-helpers/resource PodRequests and
// PodLimits, the copy in the LimitRanger): regular containers and sidecars (init containers that restart Always)
// add up; a plain init container runs alone beside the sidecars started before it, so the pod needs the largest
// of those moments. Only the spec is read (pod-level resources are behind a gate that is off in 1.33).
import { parseQuantity, type KubeObject, type Quantity } from '@cl/apimachinery';

export type ResourceTotals = Map<string, Quantity>;
type Which = 'requests' | 'limits';

interface ContainerResources {
  restartPolicy?: string;
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
}

interface PodSpecResources {
  containers?: ContainerResources[];
  initContainers?: ContainerResources[];
  overhead?: Record<string, unknown>;
}

const specOf = (pod: KubeObject) => ((pod as { spec?: PodSpecResources }).spec ?? {}) as PodSpecResources;

/** A resource list as quantities; values that do not parse are left out (validation reports them). */
export function resourceTotals(list: Record<string, unknown> | undefined): ResourceTotals {
  const out: ResourceTotals = new Map();
  for (const [name, raw] of Object.entries(list ?? {})) {
    try {
      out.set(name, parseQuantity(raw));
    } catch {
      // not a quantity: skipped
    }
  }
  return out;
}

export function addInto(total: ResourceTotals, more: ResourceTotals): void {
  for (const [name, q] of more) {
    const have = total.get(name);
    total.set(name, have ? have.add(q) : q);
  }
}

function maxInto(total: ResourceTotals, other: ResourceTotals): void {
  for (const [name, q] of other) {
    const have = total.get(name);
    if (!have || q.cmp(have) > 0) total.set(name, q);
  }
}

/** The pod's requests or limits over its containers; with `overhead`, plus spec.overhead (quota does, LimitRanger not). */
export function podResourceTotals(pod: KubeObject, which: Which, opts: { overhead?: boolean } = {}): ResourceTotals {
  const spec = specOf(pod);
  const total: ResourceTotals = new Map();
  for (const c of spec.containers ?? []) addInto(total, resourceTotals(c?.resources?.[which]));
  const sidecars: ResourceTotals = new Map();
  const initPeak: ResourceTotals = new Map();
  for (const c of spec.initContainers ?? []) {
    const own = resourceTotals(c?.resources?.[which]);
    let moment: ResourceTotals;
    if (c?.restartPolicy === 'Always') {
      addInto(total, own);
      addInto(sidecars, own);
      moment = new Map(sidecars);
    } else {
      moment = new Map(own);
      addInto(moment, sidecars);
    }
    maxInto(initPeak, moment);
  }
  maxInto(total, initPeak);
  if (opts.overhead && spec.overhead) {
    // Overhead adds to every request, but only to limits that are set (an unset limit stays unlimited).
    const overhead = resourceTotals(spec.overhead);
    if (which === 'limits') for (const name of overhead.keys()) if (!total.has(name)) overhead.delete(name);
    addInto(total, overhead);
  }
  return total;
}
