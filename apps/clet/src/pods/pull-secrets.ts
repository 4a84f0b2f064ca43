// A pod's spec.imagePullSecrets, read before its image pulls (upstream's getPullSecretsForPod): each named
// secret from the pod's namespace through the agent's API client. One that cannot be read is not fatal:
// it is logged and the pod gets one FailedToRetrieveImagePullSecret warning naming all of them, and the
// pull goes on with what was read.
//
// Static pods (file or http sources) cannot reference API objects: upstream's NodeRestriction refuses a
// mirror pod that names secrets, so the node may not read them, and in standalone mode there is no API
// server at all. Their pull secrets are therefore reported as unretrievable, never read.
import type { PullSecret } from '../credential-provider';
import type { Pod } from './api-types';
import { CONFIG_SOURCE_ANNOTATION } from './decode';
import { logLine, type LogFn } from './log';
import type { PodEventFn } from './pod-events';
import { podFullName } from './runtime-spec';

/** Reads one secret; rejects when it cannot (missing, forbidden, unreachable API server). */
export type SecretGetter = (namespace: string, name: string) => Promise<PullSecret>;

/** The names in spec.imagePullSecrets; entries with an empty name are skipped, as upstream (API validation let them in). */
export function pullSecretNames(pod: Pod): string[] {
  const refs = pod.spec.imagePullSecrets;
  if (!Array.isArray(refs)) return [];
  return refs.map((r) => (typeof r === 'object' && r !== null && typeof (r as { name?: unknown }).name === 'string' ? (r as { name: string }).name : ''))
    .filter((n) => n !== '');
}

const isStatic = (pod: Pod) => {
  const source = pod.metadata.annotations?.[CONFIG_SOURCE_ANNOTATION];
  return source !== undefined && source !== 'api';
};

/** The pod's readable pull secrets, in spec order; logs and reports the others. */
export async function podPullSecrets(pod: Pod, get: SecretGetter | undefined, log: LogFn, events: PodEventFn): Promise<PullSecret[]> {
  const names = pullSecretNames(pod);
  if (names.length === 0) return [];
  const namespace = pod.metadata.namespace ?? 'default';
  const found: PullSecret[] = [];
  const failed: string[] = [];
  for (const name of names) {
    try {
      if (isStatic(pod)) throw new Error('static pods cannot reference secrets');
      if (!get) throw new Error('no API server connection (standalone mode)');
      found.push(await get(namespace, name));
    } catch (e) {
      log(logLine('Unable to retrieve pull secret, the image pull may not succeed.', { pod: podFullName(pod), secret: `${namespace}/${name}` }, { err: (e as Error).message }));
      failed.push(name);
    }
  }
  if (failed.length > 0) {
    events(pod, 'Warning', 'FailedToRetrieveImagePullSecret',
      `Unable to retrieve some image pull secrets (${failed.join(', ')}); attempting to pull the image may not succeed.`);
  }
  return found;
}
