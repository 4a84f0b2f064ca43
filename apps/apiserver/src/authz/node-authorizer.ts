// The Node authorizer (upstream plugin/pkg/auth/authorizer/node), with a simplified graph: a node
// (`system:node:<name>` in `system:nodes`) may get a secret, config map, persistent volume claim or create a
// service account token only when a pod bound to it in that namespace references the object; everything else it
// may do is upstream's node rules (the system:node role's rules). Other users: no opinion.
// The references a pod makes are the same walk NodeRestriction checks mirror pods with (@cl/registry's
// podReferences), so admission refuses every path the graph would follow. Mirror pods link a node to nothing
// (upstream's AddPod short-circuit): a node writes those itself, and must never grant itself access by doing so.
import type { Attributes, Decision } from '@cl/auth';
import { nodeRules, rulesAllow } from '@cl/rbac';
import { isMirrorPod, podReferences as referencesOf, type PodLike, type ResourceStore } from '@cl/registry';

const NODE_PREFIX = 'system:node:';
const NODES_GROUP = 'system:nodes';

type Ref = 'secrets' | 'configmaps' | 'persistentvolumeclaims' | 'serviceaccounts';

type PodSpecLite = NonNullable<PodLike['spec']>;

/** Whether a pod relates a node to the object (upstream's graph edges from a pod), mirror pods never. */
function podRelates(pod: PodLike, kind: Ref, name: string): boolean {
  if (isMirrorPod(pod)) return false;
  const spec = pod.spec ?? {};
  // A pod stored without serviceAccountName (the ServiceAccount plugin off) runs as default.
  if (kind === 'serviceaccounts' && !(spec.serviceAccountName || spec.serviceAccount)) return name === 'default';
  for (const r of referencesOf(pod)) if (r.kind === kind && r.name === name) return true;
  return false;
}

/** Whether a pod spec references the object (upstream's graph edges from a pod). */
export function podReferences(spec: PodSpecLite, kind: Ref, name: string): boolean {
  return podRelates({ spec }, kind, name);
}

/** The node a user is, or undefined when it is not a node. */
export function nodeNameOf(a: Attributes): string | undefined {
  if (!a.user.groups.includes(NODES_GROUP) || !a.user.username.startsWith(NODE_PREFIX)) return undefined;
  return a.user.username.slice(NODE_PREFIX.length) || undefined;
}

export class NodeAuthorizer {
  private pods: ResourceStore | undefined;
  private readonly rules = nodeRules();

  /** The pods store the graph is read from (its watch cache). */
  attach(pods: ResourceStore): void {
    this.pods = pods;
  }

  authorize(a: Attributes): Decision {
    const node = nodeNameOf(a);
    if (!node) return { decision: 'NoOpinion', reason: '' };
    if (a.isResourceRequest && a.apiGroup === '') {
      const graphed = graphKind(a);
      if (graphed) return this.authorizeGraphed(a, node, graphed);
    }
    return rulesAllow(a, this.rules) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' };
  }

  private authorizeGraphed(a: Attributes, node: string, kind: Ref): Decision {
    // Secrets and config maps may be read one at a time (a list or watch of `metadata.name=x` names it, as upstream's
    // request info does); claims only got; tokens only created.
    if (kind === 'serviceaccounts' && a.verb !== 'create') return { decision: 'NoOpinion', reason: 'can only create tokens for individual service accounts' };
    if (kind === 'persistentvolumeclaims' && a.verb !== 'get') return { decision: 'NoOpinion', reason: 'can only get individual resources of this type' };
    if ((kind === 'secrets' || kind === 'configmaps') && !['get', 'list', 'watch'].includes(a.verb)) return { decision: 'NoOpinion', reason: 'can only read resources of this type' };
    if (!a.name) return { decision: 'NoOpinion', reason: 'No Object name found' };
    const pods = this.pods?.cache.list(this.pods.key(a.namespace, '')).items ?? [];
    const related = pods.some((p) => {
      const pod = p.object as PodLike & { spec?: { nodeName?: string } };
      return pod.spec?.nodeName === node && podRelates(pod, kind, a.name);
    });
    if (related) return { decision: 'Allow', reason: '' };
    return { decision: 'NoOpinion', reason: `no relationship found between node '${node}' and this object` };
  }
}

function graphKind(a: Attributes): Ref | undefined {
  if (a.subresource === '' && (a.resource === 'secrets' || a.resource === 'configmaps' || a.resource === 'persistentvolumeclaims')) return a.resource;
  if (a.resource === 'serviceaccounts' && a.subresource === 'token') return 'serviceaccounts';
  return undefined;
}
