// Events about a pod's containers (Pulling, Pulled, Created, Started, Killing, BackOff, Failed), with upstream
// kubelet's reasons and messages. Standalone, nothing listens; with an API server they become core/v1 events.
import type { Container, Pod } from './api-types';

export type PodEventFn = (pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string, fieldPath?: string) => void;

export const noPodEvents: PodEventFn = () => undefined;

/** The object reference fieldPath of a container: `spec.containers{name}` (upstream's GenerateContainerRef). */
export function containerFieldPath(pod: Pod, c: Container | string): string {
  const name = typeof c === 'string' ? c : c.name;
  if (pod.spec.initContainers?.some((i) => i.name === name)) return `spec.initContainers{${name}}`;
  if (pod.spec.ephemeralContainers?.some((e) => e.name === name)) return `spec.ephemeralContainers{${name}}`;
  return `spec.containers{${name}}`;
}
