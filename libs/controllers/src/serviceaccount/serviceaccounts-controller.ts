// kube-controller-manager's service account controller (pkg/controller/serviceaccount/serviceaccounts_controller.go):
// every Active namespace has the service accounts it should (`default`). A new namespace gets them, a deleted one
// comes back; a namespace being deleted gets nothing new.
import { handlersWhile, isAlreadyExists, resourcePath, type Informer, type KubeClient } from '@cl/kube-client';
import type { Controller, ControllerContext, ControllerLog } from '../controller';
import { KeyQueue } from '../core-v1/loops';
import { isNamespaceTerminating } from '../core-v1/namespace-terminating';
import type { Namespace, ObjectMeta } from '../core-v1/types';
import { NAMESPACES_PATH } from '../core-v1/well-known';

export interface ServiceAccount {
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface ServiceAccountsControllerOptions {
  /** The accounts every namespace gets (upstream's ServiceAccountsToEnsure: `default`). */
  accounts?: string[];
}

export const SERVICE_ACCOUNTS_PATH = '/api/v1/serviceaccounts';
const DEFAULT_ACCOUNTS = ['default'];

const errText = (e: unknown) => (e as Error)?.message ?? String(e);

export class ServiceAccountsController implements Controller {
  private readonly client: KubeClient;
  private readonly log: ControllerLog;
  private readonly accounts: string[];
  private readonly namespaces: Informer<Namespace>;
  private readonly serviceAccounts: Informer<ServiceAccount>;
  private readonly queue: KeyQueue;
  private running = false;
  private stopped = false;

  constructor(ctx: ControllerContext, options: ServiceAccountsControllerOptions = {}) {
    this.client = ctx.client;
    this.log = ctx.log ?? (() => undefined);
    this.accounts = options.accounts ?? DEFAULT_ACCOUNTS;
    this.namespaces = ctx.informers.informer<Namespace>(NAMESPACES_PATH);
    this.serviceAccounts = ctx.informers.informer<ServiceAccount>(SERVICE_ACCOUNTS_PATH);
    this.queue = new KeyQueue((ns) => this.syncNamespace(ns), (ns, e) => this.log('Syncing service accounts failed', { namespace: ns, err: errText(e) }));
    const live = handlersWhile(() => this.running);
    const queueNamespace = live((ns: Namespace) => {
      if (ns.metadata.name) this.queue.add(ns.metadata.name);
    });
    this.namespaces.on('add', queueNamespace).on('update', queueNamespace);
    this.serviceAccounts.on('delete', live((sa: ServiceAccount) => {
      if (sa.metadata.namespace && this.accounts.includes(sa.metadata.name ?? '')) this.queue.add(sa.metadata.namespace);
    }));
  }

  async start(): Promise<void> {
    if (this.running || this.stopped) return;
    await Promise.all([this.namespaces.start(), this.serviceAccounts.start()]);
    if (this.stopped) return;
    this.running = true;
    for (const ns of this.namespaces.list()) if (ns.metadata.name) this.queue.add(ns.metadata.name);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.running = false;
    await this.queue.stop();
  }

  private async syncNamespace(namespace: string): Promise<void> {
    const ns = this.namespaces.get(namespace);
    if (!ns || (ns.status?.phase ?? 'Active') !== 'Active') return;
    for (const name of this.accounts) {
      if (this.serviceAccounts.get(`${namespace}/${name}`)) continue;
      try {
        await this.client.create(resourcePath({ version: 'v1', resource: 'serviceaccounts', namespace }), { metadata: { name } });
        this.log('Created service account', { namespace, serviceAccount: name });
      } catch (e) {
        // Created meanwhile (the cache lags), or the namespace started terminating: nothing to do.
        if (isAlreadyExists(e) || isNamespaceTerminating(e)) continue;
        throw e;
      }
    }
  }
}
