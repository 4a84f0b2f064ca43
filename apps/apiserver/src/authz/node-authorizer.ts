// The Node authorizer (upstream plugin/pkg/auth/authorizer/node), with a simplified graph: a node
// (`system:node:<name>` in `system:nodes`) may get a secret, config map, persistent volume claim or create a
// service account token only when a pod bound to it in that namespace references the object; everything else it
// may do is upstream's node rules (the system:node role's rules). Other users: no opinion.
import type { Attributes, Decision } from '@cl/auth';
import type { KubeObject } from '@cl/apimachinery';
import { nodeRules, rulesAllow } from '@cl/rbac';
import type { ResourceStore } from '@cl/registry';

const NODE_PREFIX = 'system:node:';
const NODES_GROUP = 'system:nodes';

type Ref = 'secrets' | 'configmaps' | 'persistentvolumeclaims' | 'serviceaccounts';

interface PodSpecLite {
  nodeName?: string;
  serviceAccountName?: string;
  imagePullSecrets?: { name?: string }[];
  volumes?: Array<{
    secret?: { secretName?: string };
    configMap?: { name?: string };
    persistentVolumeClaim?: { claimName?: string };
    projected?: { sources?: Array<{ secret?: { name?: string }; configMap?: { name?: string } }> };
  }>;
  containers?: ContainerLite[];
  initContainers?: ContainerLite[];
  ephemeralContainers?: ContainerLite[];
}

interface ContainerLite {
  envFrom?: Array<{ configMapRef?: { name?: string }; secretRef?: { name?: string } }>;
  env?: Array<{ valueFrom?: { configMapKeyRef?: { name?: string }; secretKeyRef?: { name?: string } } }>;
}

/** Whether a pod spec references the object (upstream's graph edges from a pod). */
export function podReferences(spec: PodSpecLite, kind: Ref, name: string): boolean {
  if (kind === 'serviceaccounts') return (spec.serviceAccountName || 'default') === name;
  if (kind === 'secrets' && (spec.imagePullSecrets ?? []).some((s) => s.name === name)) return true;
  for (const v of spec.volumes ?? []) {
    if (kind === 'secrets' && v.secret?.secretName === name) return true;
    if (kind === 'configmaps' && v.configMap?.name === name) return true;
    if (kind === 'persistentvolumeclaims' && v.persistentVolumeClaim?.claimName === name) return true;
    for (const s of v.projected?.sources ?? []) {
      if (kind === 'secrets' && s.secret?.name === name) return true;
      if (kind === 'configmaps' && s.configMap?.name === name) return true;
    }
  }
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? []), ...(spec.ephemeralContainers ?? [])]) {
    for (const e of c.envFrom ?? []) {
      if (kind === 'secrets' && e.secretRef?.name === name) return true;
      if (kind === 'configmaps' && e.configMapRef?.name === name) return true;
    }
    for (const e of c.env ?? []) {
      if (kind === 'secrets' && e.valueFrom?.secretKeyRef?.name === name) return true;
      if (kind === 'configmaps' && e.valueFrom?.configMapKeyRef?.name === name) return true;
    }
  }
  return false;
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
      const spec = ((p.object as KubeObject).spec ?? {}) as PodSpecLite;
      return spec.nodeName === node && podReferences(spec, kind, a.name);
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
