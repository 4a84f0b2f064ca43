// How the agent reads the secrets and config maps its pods name (volumes, environment, imagePullSecrets):
// `configMapAndSecretChangeDetectionStrategy`, as upstream's three managers (pkg/kubelet/util/manager):
//   Get    every read is a GET to the API server;
//   Cache  a read within the TTL (the Node's `node.alpha.kubernetes.io/ttl` annotation, else 1 minute) is served
//          from memory; a pod added or changed makes its objects be read again, so a new pod never starts on
//          stale data;
//   Watch  (the default) one list+watch per referenced object (`fieldSelector=metadata.name=<name>`, what the Node
//          authorizer allows a node), started when the first pod naming it is registered and stopped when the last
//          one goes; reads come from memory once the first list arrived (waiting at most 1 s, as upstream), and an
//          object marked immutable is no longer watched.
// Pods are registered by the pod manager when a version of them is first synced, and unregistered when the pod is
// killed (its volumes leave the disk at the same time). A read of an object no registered pod names is refused, as
// upstream's "not registered". Under Watch, 30 pods started at once in one namespace (each naming kube-root-ca.crt)
// cost one list and one watch instead of 30 GETs, and no pod sync reads the API server again.
import { Informer, isNotFound, type KubeClient } from '@cl/kube-client';
import type { Pod } from '../pods/api-types';
import { clientApiObjects, type ApiObjects, type ConfigMap, type Secret, type TokenRequestSpec } from './api-objects';

export type ChangeDetectionStrategy = 'Get' | 'Cache' | 'Watch';

export interface PodObjectManager extends ApiObjects {
  /** The pod's secrets and config maps become readable (again from the API server under Cache). */
  registerPod(pod: Pod): void;
  unregisterPod(uid: string): void;
  stop(): void;
}

type Kind = 'secrets' | 'configmaps';
type ApiObject = (Secret | ConfigMap) & { metadata: { name?: string; namespace?: string }; immutable?: boolean };

const keyOf = (kind: Kind, namespace: string, name: string) => `${kind}/${namespace}/${name}`;

interface Named { name?: string }
interface EnvRefs {
  env?: Array<{ valueFrom?: { secretKeyRef?: Named; configMapKeyRef?: Named } }>;
  envFrom?: Array<{ secretRef?: Named; configMapRef?: Named }>;
}
interface VolumeRefs {
  secret?: { secretName?: string };
  configMap?: Named;
  projected?: { sources?: Array<{ secret?: Named; configMap?: Named }> };
}

export interface ObjectRef { kind: Kind; namespace: string; name: string }

/** Each secret and config map the pod names, by "kind/namespace/name" (upstream's getSecretNames, getConfigMapNames). */
export function podObjectKeys(pod: Pod): Map<string, ObjectRef> {
  const namespace = pod.metadata.namespace ?? 'default';
  const out = new Map<string, ObjectRef>();
  const add = (kind: Kind, name: string | undefined) => name && out.set(keyOf(kind, namespace, name), { kind, namespace, name });
  for (const r of (pod.spec.imagePullSecrets ?? []) as Named[]) add('secrets', r?.name);
  for (const v of (pod.spec.volumes ?? []) as VolumeRefs[]) {
    add('secrets', v.secret?.secretName);
    add('configmaps', v.configMap?.name);
    for (const s of v.projected?.sources ?? []) {
      add('secrets', s.secret?.name);
      add('configmaps', s.configMap?.name);
    }
  }
  const spec = pod.spec as { initContainers?: EnvRefs[]; containers: EnvRefs[]; ephemeralContainers?: EnvRefs[] };
  for (const c of [...(spec.initContainers ?? []), ...spec.containers, ...(spec.ephemeralContainers ?? [])]) {
    for (const e of c.envFrom ?? []) {
      add('secrets', e.secretRef?.name);
      add('configmaps', e.configMapRef?.name);
    }
    for (const e of c.env ?? []) {
      add('secrets', e.valueFrom?.secretKeyRef?.name);
      add('configmaps', e.valueFrom?.configMapKeyRef?.name);
    }
  }
  return out;
}

const notRegistered = (namespace: string, name: string) => new Error(`object ${JSON.stringify(namespace)}/${JSON.stringify(name)} not registered`);

/** Reference counting by registered pod, shared by the Cache and Watch managers. */
abstract class ReferencedObjects implements PodObjectManager {
  private readonly pods = new Map<string, { version: string; keys: Map<string, ObjectRef> }>();
  protected readonly refs = new Map<string, number>();
  private readonly direct: ApiObjects;

  constructor(client: KubeClient) {
    this.direct = clientApiObjects(client);
  }

  /** A pod referenced `key` (again): Cache forgets what it read, Watch starts a watch for a new key. */
  protected abstract referenced(key: string, ref: ObjectRef): void;
  /** No registered pod names `key` any more. */
  protected abstract released(key: string): void;
  protected abstract read(key: string, ref: ObjectRef): Promise<ApiObject | undefined>;
  abstract stop(): void;

  registerPod(pod: Pod): void {
    const uid = pod.metadata.uid ?? '';
    // One registration per version of the pod (its syncs repeat it), as upstream's pod manager registers on each add
    // or update: under Cache a pod update, not every sync, makes its objects be read again.
    const version = String(pod.metadata.resourceVersion ?? '');
    const prev = this.pods.get(uid);
    if (prev && prev.version === version) return;
    const keys = podObjectKeys(pod);
    // New references first, then the old ones go: an object the pod keeps naming is never released in between.
    for (const [key, ref] of keys) {
      this.refs.set(key, (this.refs.get(key) ?? 0) + 1);
      this.referenced(key, ref);
    }
    this.pods.set(uid, { version, keys });
    if (prev) this.release(prev.keys);
  }

  unregisterPod(uid: string): void {
    const prev = this.pods.get(uid);
    if (!prev) return;
    this.pods.delete(uid);
    this.release(prev.keys);
  }

  private release(keys: Map<string, ObjectRef>): void {
    for (const key of keys.keys()) {
      const n = (this.refs.get(key) ?? 0) - 1;
      if (n > 0) {
        this.refs.set(key, n);
      } else {
        this.refs.delete(key);
        this.released(key);
      }
    }
  }

  private get<T>(kind: Kind, namespace: string, name: string): Promise<T | undefined> {
    const key = keyOf(kind, namespace, name);
    if (!this.refs.has(key)) return Promise.reject(notRegistered(namespace, name));
    return this.read(key, { kind, namespace, name }) as Promise<T | undefined>;
  }

  secret(namespace: string, name: string): Promise<Secret | undefined> {
    return this.get<Secret>('secrets', namespace, name);
  }

  configMap(namespace: string, name: string): Promise<ConfigMap | undefined> {
    return this.get<ConfigMap>('configmaps', namespace, name);
  }

  requestToken(namespace: string, serviceAccount: string, spec: TokenRequestSpec) {
    return this.direct.requestToken(namespace, serviceAccount, spec);
  }
}

/** upstream's default TTL of the Cache manager, when the Node has no ttl annotation. */
export const DEFAULT_OBJECT_TTL_MS = 60_000;
/** The Node annotation the TTL controller sets (seconds). */
export const NODE_TTL_ANNOTATION = 'node.alpha.kubernetes.io/ttl';

/** The TTL a Node's annotation asks for, or undefined (absent or not a non-negative integer). */
export function ttlFromNode(node: { metadata?: { annotations?: Record<string, string> } } | undefined): number | undefined {
  const v = node?.metadata?.annotations?.[NODE_TTL_ANNOTATION];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) * 1000 : undefined;
}

class CachedObjects extends ReferencedObjects {
  private readonly data = new Map<string, { at: number; object: Promise<ApiObject | undefined> }>();

  constructor(private readonly client: KubeClient, private readonly ttlMs: () => number, private readonly now: () => number) {
    super(client);
  }

  protected referenced(key: string): void {
    this.data.delete(key);
  }

  protected released(key: string): void {
    this.data.delete(key);
  }

  protected read(key: string, { kind, namespace, name }: ObjectRef): Promise<ApiObject | undefined> {
    const had = this.data.get(key);
    if (had && this.now() < had.at + this.ttlMs()) return had.object;
    // A refresh after the TTL may come from the API server's cache (resourceVersion=0), as upstream's; the first read
    // after a registration is a quorum read.
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/${kind}/${encodeURIComponent(name)}${had ? '?resourceVersion=0' : ''}`;
    const object = this.client.get<ApiObject>(path).catch((e) => {
      if (isNotFound(e)) return undefined;
      if (this.data.get(key)?.object === object) this.data.delete(key); // a failure is not kept: the next read tries again
      throw e;
    });
    this.data.set(key, { at: this.now(), object });
    return object;
  }

  stop(): void {
    this.data.clear();
  }
}

/** upstream's wait for a new watch's first list before a read fails ("failed to sync ... cache"). */
export const WATCH_SYNC_WAIT_MS = 1000;

class WatchedObjects extends ReferencedObjects {
  private readonly watches = new Map<string, { informer: Informer<ApiObject>; immutable: boolean }>();

  constructor(private readonly client: KubeClient, private readonly syncWaitMs: number) {
    super(client);
  }

  protected referenced(key: string, { kind, namespace, name }: ObjectRef): void {
    if (this.watches.has(key)) return;
    const informer = new Informer<ApiObject>(this.client, { path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/${kind}`, fieldSelector: `metadata.name=${name}` });
    void informer.start();
    this.watches.set(key, { informer, immutable: false });
  }

  protected released(key: string): void {
    this.watches.get(key)?.informer.stop();
    this.watches.delete(key);
  }

  protected async read(key: string, { kind, namespace, name }: ObjectRef): Promise<ApiObject | undefined> {
    const w = this.watches.get(key);
    if (!w) throw notRegistered(namespace, name);
    if (!w.informer.hasSynced()) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.syncWaitMs)));
      const synced = await Promise.race([w.informer.start().then(() => true), timedOut]);
      clearTimeout(timer);
      if (!synced || !w.informer.hasSynced()) throw new Error(`failed to sync ${kind.replace(/s$/, '')} cache: timed out waiting for the condition`);
    }
    const object = w.informer.get(`${namespace}/${name}`);
    // An immutable object cannot change again (only be deleted and re-created under a new uid, which a new pod's
    // registration would not see either upstream): its watch is no longer needed.
    if (object?.immutable === true && !w.immutable) {
      w.immutable = true;
      w.informer.stop();
    }
    return object;
  }

  stop(): void {
    for (const w of this.watches.values()) w.informer.stop();
    this.watches.clear();
  }
}

export interface ObjectManagerOptions {
  /** Cache: the TTL now (upstream reads it from the Node at each read). */
  ttlMs?: () => number;
  now?: () => number;
  /** Watch: how long a read waits for a new watch's first list. */
  syncWaitMs?: number;
}

/** The manager for a strategy (validated at start: an unknown one never gets here). */
export function objectManagerFor(strategy: ChangeDetectionStrategy, client: KubeClient, o: ObjectManagerOptions = {}): PodObjectManager {
  if (strategy === 'Get') {
    return { ...clientApiObjects(client), registerPod: () => undefined, unregisterPod: () => undefined, stop: () => undefined };
  }
  if (strategy === 'Cache') return new CachedObjects(client, o.ttlMs ?? (() => DEFAULT_OBJECT_TTL_MS), o.now ?? Date.now);
  return new WatchedObjects(client, o.syncWaitMs ?? WATCH_SYNC_WAIT_MS);
}
