// Which of @cl/controllers' control loops this process runs, from kube-controller-manager's flags: --controllers
// with its names and aliases ('*', 'foo', '-foo'), and the settings of node lifecycle, pod GC and the root CA
// publisher. The scheduler has --enable-scheduler.
import { readFileSync } from 'node:fs';
import { DeploymentController, GarbageCollector, NamespaceController, NodeLifecycleController, PodGCController, ReplicaSetController, ResourceQuotaController, RootCACertPublisher, ServiceAccountsController, TaintEvictionController, type Controller, type ControllerContext } from '@cl/controllers';
import type { InProcessContext, InProcessControllerFactory } from './in-process';

export interface ControllerOptions {
  /** --controllers, as given. */
  enabled: string[];
  nodeMonitorPeriodMs: number;
  nodeMonitorGracePeriodMs: number;
  nodeStartupGracePeriodMs: number;
  nodeEvictionRate: number;
  terminatedPodGCThreshold: number;
  resourceQuotaSyncPeriodMs: number;
  concurrentNamespaceSyncs: number;
  concurrentGCSyncs: number;
  /** --root-ca-file; empty: the CA of the serving certificate. */
  rootCAFile: string;
}

type Make = (ctx: ControllerContext, opts: ControllerOptions, serving: InProcessContext) => Controller;

// Upstream 1.33's names, each with the short alias kube-controller-manager still accepts.
const CONTROLLERS: { name: string; alias: string; make: Make }[] = [
  { name: 'namespace-controller', alias: 'namespace', make: (ctx, o) => new NamespaceController(ctx, { workers: o.concurrentNamespaceSyncs }) },
  { name: 'serviceaccount-controller', alias: 'serviceaccount', make: (ctx) => new ServiceAccountsController(ctx) },
  { name: 'garbage-collector-controller', alias: 'garbagecollector', make: (ctx, o) => new GarbageCollector(ctx, { workers: o.concurrentGCSyncs }) },
  { name: 'resourcequota-controller', alias: 'resourcequota', make: (ctx, o) => new ResourceQuotaController(ctx, { resyncMs: o.resourceQuotaSyncPeriodMs }) },
  { name: 'replicaset-controller', alias: 'replicaset', make: (ctx) => new ReplicaSetController(ctx) },
  { name: 'deployment-controller', alias: 'deployment', make: (ctx) => new DeploymentController(ctx) },
  {
    name: 'node-lifecycle-controller',
    alias: 'nodelifecycle',
    make: (ctx, o) =>
      new NodeLifecycleController(ctx, {
        nodeMonitorPeriodMs: o.nodeMonitorPeriodMs,
        nodeMonitorGracePeriodMs: o.nodeMonitorGracePeriodMs,
        nodeStartupGracePeriodMs: o.nodeStartupGracePeriodMs,
        nodeEvictionRate: o.nodeEvictionRate,
      }),
  },
  { name: 'taint-eviction-controller', alias: 'taint-eviction-controller', make: (ctx) => new TaintEvictionController(ctx) },
  { name: 'pod-garbage-collector-controller', alias: 'podgc', make: (ctx, o) => new PodGCController(ctx, { terminatedPodThreshold: Math.max(0, o.terminatedPodGCThreshold) }) },
  { name: 'root-ca-certificate-publisher-controller', alias: 'root-ca-cert-publisher', make: (ctx, o, serving) => new RootCACertPublisher(ctx, { rootCA: rootCA(o, serving) }) },
];

export const KNOWN_CONTROLLERS = CONTROLLERS.map((c) => c.name);

const canonical = (name: string) => CONTROLLERS.find((c) => c.name === name || c.alias === name)?.name;

export function validateControllerOptions(o: ControllerOptions): string[] {
  const errs: string[] = [];
  for (const entry of o.enabled) {
    const name = entry.startsWith('-') ? entry.slice(1) : entry;
    if (entry !== '*' && !canonical(name)) errs.push(`--controllers: ${JSON.stringify(name)} is not in the list of known controllers`);
  }
  if (o.nodeEvictionRate < 0) errs.push('--node-eviction-rate must not be negative');
  if (o.nodeMonitorGracePeriodMs <= 0) errs.push('--node-monitor-grace-period must be greater than 0');
  if (o.nodeMonitorPeriodMs <= 0) errs.push('--node-monitor-period must be greater than 0');
  if (o.resourceQuotaSyncPeriodMs <= 0) errs.push('--resource-quota-sync-period must be greater than 0');
  if (o.concurrentNamespaceSyncs < 1) errs.push('--concurrent-namespace-syncs must be at least 1');
  if (o.concurrentGCSyncs < 1) errs.push('--concurrent-gc-syncs must be at least 1');
  if (o.rootCAFile) {
    try {
      if (!/-----BEGIN CERTIFICATE-----/.test(readFileSync(o.rootCAFile, 'utf8'))) errs.push(`--root-ca-file: ${o.rootCAFile} holds no PEM certificate`);
    } catch (e) {
      errs.push(`--root-ca-file: ${(e as Error).message}`);
    }
  }
  return errs;
}

/** kube-controller-manager's rule: a name enables, '-name' disables, '*' enables the rest (all on by default here). */
export function isControllerEnabled(name: string, enabled: string[]): boolean {
  let star = false;
  for (const entry of enabled) {
    if (entry === '*') star = true;
    else if (entry.startsWith('-') && canonical(entry.slice(1)) === name) return false;
    else if (canonical(entry) === name) return true;
  }
  return star;
}

/** The published CA: --root-ca-file, else the last certificate of the serving bundle (its CA when self-signed). */
function rootCA(o: ControllerOptions, serving: InProcessContext): string {
  if (o.rootCAFile) return readFileSync(o.rootCAFile, 'utf8');
  const pems = serving.servingCert.toString('utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
  const last = pems[pems.length - 1] ?? '';
  return last.endsWith('\n') ? last : `${last}\n`;
}

/** The enabled controllers as in-process factories, in a fixed order. */
export function controllerFactories(o: ControllerOptions): InProcessControllerFactory[] {
  return CONTROLLERS.filter((c) => isControllerEnabled(c.name, o.enabled)).map(
    (c): InProcessControllerFactory =>
      (ctx) =>
        c.make({ client: ctx.client, informers: ctx.informers, log: ctx.structured }, o, ctx),
  );
}
