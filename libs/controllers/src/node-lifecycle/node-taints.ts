// Writing a node's taints as upstream's SwapNodeControllerTaint and PatchNodeTaints do: spec.taints has no merge
// key, so the whole list is sent, with the resourceVersion it was computed from so that a taint someone else
// added meanwhile is not lost (409: read the node again and recompute). The first try works from the informer's
// copy, the retries from a fresh GET, up to five tries (UpdateTaintBackoff). Adding and removing go in one
// patch (upstream sends two), so the node never has both or neither of a swapped pair.
import { metaTime } from '@cl/apimachinery';
import { isConflict, resourcePath, type KubeClient } from '@cl/kube-client';
import type { Node } from '../core-v1/types';
import { applyTaintChanges, type TaintChanges } from './condition-taints';

const TRIES = 5;

/** Resolves once the node's taints are as asked (written now, or already so); rejects with the API's error. */
export async function swapNodeTaints(client: KubeClient, cached: Node, changes: TaintChanges, now: () => Date = () => new Date()): Promise<void> {
  const path = resourcePath({ version: 'v1', resource: 'nodes', name: cached.metadata.name ?? '' });
  let node = cached;
  for (let attempt = 1; ; attempt++) {
    const taints = applyTaintChanges(node.spec?.taints, changes, metaTime(now()));
    if (!taints) return;
    try {
      await client.patch(path, { metadata: { resourceVersion: node.metadata.resourceVersion }, spec: { taints } }, 'merge');
      return;
    } catch (e) {
      if (!isConflict(e) || attempt >= TRIES) throw e;
    }
    node = await client.get<Node>(path);
  }
}
