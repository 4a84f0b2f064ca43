// Admission plugins that shape pods and nodes on create, as upstream's (plugin/pkg/admission):
// DefaultTolerationSeconds (pods tolerate not-ready and unreachable nodes for 300 s), TaintNodesByCondition
// (a new node starts tainted not-ready until its agent reports Ready). ServiceAccount is in ./service-account.
import type { AdmissionPlugin } from '../admission';

interface Toleration {
  key?: string;
  operator?: string;
  effect?: string;
  tolerationSeconds?: number;
}

const isPodCreate = (a: { operation: string; resource: { group: string; resource: string }; subresource: string }) =>
  a.operation === 'CREATE' && a.resource.group === '' && a.resource.resource === 'pods' && a.subresource === '';

const NOT_READY = 'node.kubernetes.io/not-ready';
const UNREACHABLE = 'node.kubernetes.io/unreachable';

/** Whether a toleration already covers the NoExecute taint `key` (an Exists with no key covers everything). */
function tolerates(list: Toleration[], key: string): boolean {
  return list.some((t) => (t.key === key || (!t.key && t.operator === 'Exists')) && (!t.effect || t.effect === 'NoExecute'));
}

export function defaultTolerationSeconds(seconds = 300): AdmissionPlugin {
  return {
    name: 'DefaultTolerationSeconds',
    mutate(a) {
      if (!isPodCreate(a) || !a.object) return;
      const spec = ((a.object as { spec?: { tolerations?: Toleration[] } }).spec ??= {});
      const list = (spec.tolerations ??= []);
      for (const key of [NOT_READY, UNREACHABLE]) {
        if (!tolerates(list, key)) list.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds });
      }
    },
  };
}

export function taintNodesByCondition(): AdmissionPlugin {
  return {
    name: 'TaintNodesByCondition',
    mutate(a) {
      if (a.operation !== 'CREATE' || a.resource.group !== '' || a.resource.resource !== 'nodes' || a.subresource !== '' || !a.object) return;
      const spec = ((a.object as { spec?: { taints?: Array<{ key?: string; effect?: string }> } }).spec ??= {});
      const taints = (spec.taints ??= []);
      if (!taints.some((t) => t.key === NOT_READY && t.effect === 'NoSchedule')) taints.push({ key: NOT_READY, effect: 'NoSchedule' });
    },
  };
}
