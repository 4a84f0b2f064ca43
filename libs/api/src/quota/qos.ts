// A pod's quality-of-service class as upstream computes it (pkg/apis/core/helper/qos): quota scopes, the pod's
// status.qosClass and admission under node pressure all read it.
import { parseQuantity, type KubeObject, type Quantity } from '@cl/apimachinery';

export type QOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

interface ContainerResources {
  resources?: { limits?: Record<string, unknown>; requests?: Record<string, unknown> };
}

const quantity = (v: unknown): Quantity | null => {
  try {
    return parseQuantity(v);
  } catch {
    return null;
  }
};

/** Guaranteed (every container limits cpu and memory, requests equal), BestEffort (no container asks anything), else Burstable. */
export function qosClass(o: KubeObject): QOSClass {
  const spec = ((o as { spec?: { containers?: ContainerResources[]; initContainers?: ContainerResources[] } }).spec ?? {});
  const all = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
  let any = false;
  let guaranteed = all.length > 0;
  for (const c of all) {
    const limits = c.resources?.limits ?? {};
    const requests = { ...limits, ...(c.resources?.requests ?? {}) };
    for (const name of ['cpu', 'memory']) {
      const r = requests[name] !== undefined ? quantity(requests[name]) : null;
      const l = limits[name] !== undefined ? quantity(limits[name]) : null;
      if ((r && !r.isZero()) || (l && !l.isZero())) any = true;
      if (!l || !r || l.cmp(r) !== 0) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
