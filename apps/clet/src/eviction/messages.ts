// What an eviction says, in upstream's words (pkg/kubelet/eviction/helpers.go): the pod's status message and
// event, and the admission refusal under pressure. Quantities print as upstream's resource.Quantity does.
import { Quantity } from '@cl/apimachinery';
import type { Pod } from '../pods/api-types';
import { podRequest } from './ranking';
import type { PodUsage } from './pod-usage';
import { SIGNALS, type NodeConditionType, type Observations } from './signals';
import { thresholdQuantity, type Threshold } from './thresholds';

export const EVICTED_REASON = 'Evicted';

/** A count (inodes, pids) as upstream's DecimalSI quantity: `1k`, `12345`. */
export const decimalQuantity = (n: number) => Quantity.parse(String(Math.trunc(n))).toString();

/** Bytes as upstream's BinarySI quantity: the largest binary suffix that divides it exactly (`5Mi`, `31676Ki`), else plain. */
export function binaryQuantity(bytes: number): string {
  let n = Math.trunc(bytes);
  if (Math.abs(n) < 1024) return decimalQuantity(n);
  const suffixes = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
  let i = 0;
  while (i < suffixes.length - 1 && n % 1024 === 0 && n !== 0) {
    n /= 1024;
    i++;
  }
  return `${n}${suffixes[i]}`;
}

/** A signal's amount as upstream prints it: bytes binary, inodes and pids decimal. */
function amountText(resource: string, n: number): string {
  return resource === 'memory' || resource === 'ephemeral-storage' ? binaryQuantity(n) : decimalQuantity(n);
}

/**
 * The eviction message: `The node was low on resource: <r>. Threshold quantity: <q>, available: <a>. ` and, for
 * memory and ephemeral storage, each container that used more than it requested (upstream's evictionMessage).
 */
export function evictionMessage(resource: string, pod: Pod, usage: PodUsage | undefined, met: readonly Threshold[], obs: Observations): string {
  let message = `The node was low on resource: ${resource}. `;
  const t = met.find((x) => SIGNALS[x.signal].resource === resource && obs[x.signal]);
  if (t) {
    const o = obs[t.signal]!;
    const quantity = 'text' in t.value ? Quantity.parse(t.value.text).toString() : amountText(resource, thresholdQuantity(t.value, o.capacity));
    message += `Threshold quantity: ${quantity}, available: ${amountText(resource, o.available)}. `;
  }
  if (!usage) return message;
  for (const c of usage.containers) {
    const spec = pod.spec.containers.find((x) => x.name === c.name);
    if (!spec) continue;
    const used = resource === 'memory' ? c.memoryBytes : resource === 'ephemeral-storage' ? c.ephemeralBytes : undefined;
    if (used === undefined) continue;
    const requestText = spec.resources?.requests?.[resource];
    const request = requestText === undefined ? 0 : podRequest({ ...pod, spec: { ...pod.spec, containers: [spec], initContainers: [] } }, resource);
    if (used > request) {
      const shown = requestText === undefined ? '0' : Quantity.parse(String(requestText)).toString();
      message += `Container ${c.name} was using ${binaryQuantity(used)}, request is ${shown}, has larger consumption of ${resource}. `;
    }
  }
  return message;
}

/** The admission refusal under pressure: `The node had condition: [DiskPressure]. ` (Go's %v of the list). */
export function admissionMessage(conditions: readonly NodeConditionType[]): string {
  return `The node had condition: [${conditions.join(' ')}]. `;
}
