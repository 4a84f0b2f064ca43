// The pods each source wants (static pod files, a manifest URL, the API server), each source's whole set at a
// time, as upstream's pod config: a second pod of the same full name within one source is refused, and every pod
// handed on is a copy annotated with its source and when the node first saw it.
import { CONFIG_SOURCE_ANNOTATION } from './node-agent';
import type { PodLike } from './pod-lifecycle';
import type { NodeLog } from './types';

export type PodSourceName = 'file' | 'http' | 'api';

export const CONFIG_SEEN_ANNOTATION = 'kubernetes.io/config.seen';

/** Upstream's pod full name (kubecontainer.GetPodFullName), the name the kubelet logs pods by. */
export function podFullName(pod: PodLike): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}`;
}

export class PodSourceSets<P extends PodLike> {
  private readonly sets = new Map<PodSourceName, P[]>();
  /** When each wanted uid was first seen (ISO time), kept while some source wants it. */
  private readonly seen = new Map<string, string>();

  constructor(private readonly log: NodeLog, private readonly now: () => number) {}

  /** Replaces one source's set. */
  set(source: PodSourceName, pods: readonly P[]): void {
    const byName = new Map<string, P>();
    for (const p of pods) {
      const full = podFullName(p);
      if (byName.has(full)) {
        this.log(`Error validating pod ${full} from ${source} due to duplicate pod name ${JSON.stringify(p.metadata.name)}, ignoring`);
        continue;
      }
      byName.set(full, p);
    }
    this.sets.set(source, [...byName.values()]);
  }

  /** Whether the source has handed over a set yet. */
  reported(source: PodSourceName): boolean {
    return this.sets.has(source);
  }

  /**
   * Every pod some source wants, by uid (a later source wins a uid two share), oldest first seen first: the order
   * admission counts in. Copies: API pods are the watch cache's objects, which must not change under it.
   */
  desired(): Map<string, P> {
    const desired = new Map<string, P>();
    const at = new Date(this.now()).toISOString();
    for (const [source, pods] of this.sets) {
      for (const given of pods) {
        const uid = given.metadata.uid!;
        if (!this.seen.has(uid)) this.seen.set(uid, at);
        const annotations = { ...given.metadata.annotations, [CONFIG_SOURCE_ANNOTATION]: source, [CONFIG_SEEN_ANNOTATION]: this.seen.get(uid)! };
        desired.set(uid, { ...given, metadata: { ...given.metadata, annotations } });
      }
    }
    // A pod that left every source and comes back is new again.
    for (const uid of [...this.seen.keys()]) if (!desired.has(uid)) this.seen.delete(uid);
    const seenAt = (p: P) => this.seen.get(p.metadata.uid!)!;
    return new Map([...desired].sort(([, a], [, b]) => seenAt(a).localeCompare(seenAt(b))));
  }
}
