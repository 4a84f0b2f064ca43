// Object references for events, as client-go's reference.GetReference makes them from an object (and as the node
// controllers' RecordNodeEvent builds them for nodes: no resourceVersion).
import type { ObjectReference } from '@cl/kube-client';
import type { Node, Pod } from './types';

export function podReference(pod: Pod): ObjectReference {
  const { namespace, name = '', uid, resourceVersion } = pod.metadata;
  return { kind: 'Pod', apiVersion: 'v1', namespace, name, uid, resourceVersion };
}

export function nodeReference(node: Node): ObjectReference {
  return { kind: 'Node', apiVersion: 'v1', name: node.metadata.name ?? '', uid: node.metadata.uid };
}
