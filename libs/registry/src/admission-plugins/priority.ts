// Priority (upstream plugin/pkg/admission/priority): a pod's priorityClassName becomes its priority and
// preemption policy; a pod without one gets the global default class, or priority 0. A priority written in
// the pod that disagrees, or a class that does not exist, is refused (403).
import { apiErrors, type KubeObject } from '@cl/apimachinery';
import type { AdmissionPlugin } from '../admission';
import type { ResourceStore } from '../resource-store';

interface PodSpec {
  priorityClassName?: string;
  priority?: number;
  preemptionPolicy?: string;
}

export function priorityAdmission(classes: ResourceStore): AdmissionPlugin {
  const find = async (name: string): Promise<KubeObject | undefined> => classes.cache.get(classes.key('', name))?.object ?? (await classes.get('', name).catch(() => undefined));
  return {
    name: 'Priority',
    async mutate(a) {
      if (a.operation !== 'CREATE' || a.resource.group !== '' || a.resource.resource !== 'pods' || a.subresource !== '' || !a.object) return;
      const spec = ((a.object as { spec?: PodSpec }).spec ??= {});
      let value = 0;
      let policy = 'PreemptLowerPriority';
      if (spec.priorityClassName) {
        const cls = await find(spec.priorityClassName);
        if (!cls) throw apiErrors.forbidden(a.resource, a.name, `no PriorityClass with name ${spec.priorityClassName} was found`);
        value = (cls as { value?: number }).value ?? 0;
        policy = (cls as { preemptionPolicy?: string }).preemptionPolicy ?? policy;
      } else {
        const def = classes.cache.list().items.find((i) => (i.object as { globalDefault?: boolean }).globalDefault);
        if (def) {
          spec.priorityClassName = def.object.metadata!.name;
          value = (def.object as { value?: number }).value ?? 0;
          policy = (def.object as { preemptionPolicy?: string }).preemptionPolicy ?? policy;
        }
      }
      if (spec.priority !== undefined && spec.priority !== value) {
        throw apiErrors.forbidden(a.resource, a.name, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${value} from the given PriorityClass name`);
      }
      spec.priority = value;
      spec.preemptionPolicy ??= policy;
    },
  };
}
