// kube-controller-manager's root CA certificate publisher (pkg/controller/certificates/rootcacertpublisher): every
// namespace gets a ConfigMap `kube-root-ca.crt` whose `ca.crt` is the CA bundle that verifies the API server, so
// pods (projected service account volumes, client libraries) can trust it without being handed it. A deleted
// one comes back, an edited one gets its data back; nothing is written into a namespace being terminated.
import { handlersWhile, isNotFound, resourcePath, type Informer, type KubeClient } from '@cl/kube-client';
import type { Controller, ControllerContext, ControllerLog } from '../controller';
import { KeyQueue } from '../core-v1/loops';
import { isNamespaceTerminating } from '../core-v1/namespace-terminating';
import type { ConfigMap, Namespace } from '../core-v1/types';
import { CONFIGMAPS_PATH, NAMESPACES_PATH } from '../core-v1/well-known';

export interface RootCACertPublisherOptions {
  /** The PEM bundle to publish (kube-controller-manager's --root-ca-file, read). */
  rootCA: string;
}

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
export const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
/** Upstream's wording, word for word: tools and people read it to know what the ConfigMap is for. */
export const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.';

/** The ConfigMap a namespace should have. */
export function rootCAConfigMap(rootCA: string): ConfigMap {
  return { metadata: { name: ROOT_CA_CONFIGMAP, annotations: { [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } }, data: { 'ca.crt': rootCA } };
}

/**
 * The existing ConfigMap as it should be, or undefined when it already is: its data exactly `ca.crt` (other keys
 * removed), and a description annotation (any non-empty one is left; other annotations and fields are kept).
 */
export function repairedRootCAConfigMap(current: ConfigMap, rootCA: string): ConfigMap | undefined {
  const data = current.data ?? {};
  const keys = Object.keys(data);
  const dataOk = keys.length === 1 && data['ca.crt'] === rootCA;
  if (dataOk && current.metadata.annotations?.[DESCRIPTION_ANNOTATION]) return undefined;
  return {
    ...current,
    metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } },
    data: { 'ca.crt': rootCA },
  };
}

const errText = (e: unknown) => (e as Error)?.message ?? String(e);

export class RootCACertPublisher implements Controller {
  private readonly client: KubeClient;
  private readonly log: ControllerLog;
  private readonly rootCA: string;
  private readonly namespaces: Informer<Namespace>;
  private readonly configMaps: Informer<ConfigMap>;
  private readonly queue: KeyQueue;
  private running = false;
  private stopped = false;

  constructor(ctx: ControllerContext, options: RootCACertPublisherOptions) {
    this.client = ctx.client;
    this.log = ctx.log ?? (() => undefined);
    this.rootCA = options.rootCA;
    this.namespaces = ctx.informers.informer<Namespace>(NAMESPACES_PATH);
    this.configMaps = ctx.informers.informer<ConfigMap>(CONFIGMAPS_PATH);
    this.queue = new KeyQueue((ns) => this.syncNamespace(ns), (ns, e) => this.log('Syncing kube-root-ca.crt failed', { namespace: ns, err: errText(e) }));
    const live = handlersWhile(() => this.running);
    const ours = (cm: ConfigMap) => {
      if (cm.metadata.name === ROOT_CA_CONFIGMAP && cm.metadata.namespace) this.queue.add(cm.metadata.namespace);
    };
    this.configMaps.on('update', live(ours)).on('delete', live(ours));
    this.namespaces
      .on('add', live((ns: Namespace) => this.queue.add(ns.metadata.name ?? '')))
      // A namespace being deleted keeps what it has until it goes.
      .on('update', live((ns: Namespace) => {
        if ((ns.status?.phase ?? 'Active') === 'Active') this.queue.add(ns.metadata.name ?? '');
      }));
  }

  async start(): Promise<void> {
    if (this.running || this.stopped) return;
    await Promise.all([this.namespaces.start(), this.configMaps.start()]);
    if (this.stopped) return;
    this.running = true;
    for (const ns of this.namespaces.list()) this.queue.add(ns.metadata.name ?? '');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.running = false;
    await this.queue.stop();
  }

  private async syncNamespace(namespace: string): Promise<void> {
    if (!namespace) return;
    const path = resourcePath({ version: 'v1', resource: 'configmaps', namespace });
    const current = this.configMaps.get(`${namespace}/${ROOT_CA_CONFIGMAP}`);
    if (!current) {
      try {
        await this.client.create(path, rootCAConfigMap(this.rootCA));
      } catch (e) {
        // The namespace is gone or going: nothing to publish into.
        if (isNotFound(e) || isNamespaceTerminating(e)) return;
        throw e;
      }
      return;
    }
    const repaired = repairedRootCAConfigMap(current, this.rootCA);
    // A PUT of the copy read: an edit made meanwhile is a conflict, and the retry reads it.
    if (repaired) await this.client.update(`${path}/${ROOT_CA_CONFIGMAP}`, repaired);
  }
}
