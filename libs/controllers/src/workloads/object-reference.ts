// The reference an event is about: `kubectl describe` finds a ReplicaSet's or Deployment's events by it.
import type { ObjectReference } from '@cl/kube-client';
import type { ObjectMeta } from './types';

export function objectReference(apiVersion: string, kind: string, obj: { metadata: ObjectMeta }): ObjectReference {
  const { namespace, name = '', uid, resourceVersion } = obj.metadata;
  return { kind, apiVersion, namespace, name, uid, resourceVersion };
}

export function errorMessage(e: unknown): string {
  return (e as Error)?.message ?? String(e);
}
