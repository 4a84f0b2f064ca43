// Which of @cl/controllers' control loops this process runs, from kube-controller-manager's flags: --controllers
// with its names and aliases ('*', 'foo', '-foo'), and the settings of node lifecycle, pod GC and the root CA
// publisher. The scheduler has --enable-scheduler.
import { readFileSync } from 'node:fs';
import { CsrApprovingController, CsrCleanerController, CsrSigningController, TokenCleanerController, type CsrSigningOptions } from '@cl/controllers';
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
  /** --cluster-signing-* (./csr-signing-flags): the CA files per built-in signer and the issued certificates' lifetime. */
  clusterSigning?: ClusterSigningFiles;
}

export interface ClusterSigningFiles {
  certFile: string;
  keyFile: string;
  /** Per signer: kubelet-serving, kubelet-client, kube-apiserver-client; each [cert, key]. */
  perSigner: Record<'kubelet-serving' | 'kubelet-client' | 'kube-apiserver-client', [string, string]>;
  durationMs: number;
}

type Make = (ctx: ControllerContext, opts: ControllerOptions, serving: InProcessContext) => Controller;

// Upstream 1.33's names, each with the short alias kube-controller-manager still accepts.
const CONTROLLERS: { name: string; alias: string; make: Make; offByDefault?: boolean }[] = [
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
  { name: 'certificatesigningrequest-approving-controller', alias: 'csrapproving', make: (ctx) => new CsrApprovingController(ctx) },
  // Upstream starts the signer only with signing files; without them it is skipped (logged), as here.
  {
    name: 'certificatesigningrequest-signing-controller',
    alias: 'csrsigning',
    make: (ctx, o) => {
      const signing = signingOptions(o);
      if (Object.values(signing.signers).some(Boolean)) return new CsrSigningController(ctx, signing);
      ctx.log?.('Skipping CSR signer controller because no csr cert/key was specified');
      return { start: async () => undefined, stop: async () => undefined };
    },
  },
  { name: 'certificatesigningrequest-cleaner-controller', alias: 'csrcleaner', make: (ctx) => new CsrCleanerController(ctx) },
  // Off unless named, as upstream (kubeadm runs `--controllers=*,bootstrapsigner,tokencleaner`).
  { name: 'token-cleaner-controller', alias: 'tokencleaner', make: (ctx) => new TokenCleanerController(ctx), offByDefault: true },
];

/** The CA per built-in signer from --cluster-signing-cert-file/-key-file or the per-signer flags; none without files. */
export function signingOptions(o: ControllerOptions): CsrSigningOptions {
  const s = o.clusterSigning;
  const signers: CsrSigningOptions['signers'] = {};
  if (!s) return { signers, durationMs: 365 * 86_400_000 };
  const read = ([cert, key]: [string, string]) => (cert && key ? { certPem: readFileSync(cert, 'utf8'), keyPem: readFileSync(key, 'utf8') } : undefined);
  const all = read([s.certFile, s.keyFile]);
  signers['kubernetes.io/kubelet-serving'] = all ?? read(s.perSigner['kubelet-serving']);
  signers['kubernetes.io/kube-apiserver-client-kubelet'] = all ?? read(s.perSigner['kubelet-client']);
  signers['kubernetes.io/kube-apiserver-client'] = all ?? read(s.perSigner['kube-apiserver-client']);
  return { signers, durationMs: s.durationMs };
}

/** Upstream's rules for the signing flags: files in pairs, and either the one pair or the per-signer ones. */
export function validateClusterSigning(s: ClusterSigningFiles | undefined): string[] {
  if (!s) return [];
  const errs: string[] = [];
  const perSignerSet = Object.values(s.perSigner).some(([c, k]) => c || k);
  if ((s.certFile || s.keyFile) && perSignerSet) errs.push('cannot specify --cluster-signing-{cert,key}-file and other --cluster-signing-*-file flags at the same time');
  if (!!s.certFile !== !!s.keyFile) errs.push('--cluster-signing-cert-file and --cluster-signing-key-file must be specified together');
  for (const [name, [c, k]] of Object.entries(s.perSigner)) if (!!c !== !!k) errs.push(`--cluster-signing-${name}-cert-file and --cluster-signing-${name}-key-file must be specified together`);
  for (const f of [s.certFile, s.keyFile, ...Object.values(s.perSigner).flat()]) {
    if (!f) continue;
    try {
      readFileSync(f, 'utf8');
    } catch (e) {
      errs.push(`--cluster-signing-*: ${(e as Error).message}`);
    }
  }
  if (s.durationMs <= 0) errs.push('--cluster-signing-duration must be greater than 0');
  return errs;
}

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
  errs.push(...validateClusterSigning(o.clusterSigning));
  if (o.rootCAFile) {
    try {
      if (!/-----BEGIN CERTIFICATE-----/.test(readFileSync(o.rootCAFile, 'utf8'))) errs.push(`--root-ca-file: ${o.rootCAFile} holds no PEM certificate`);
    } catch (e) {
      errs.push(`--root-ca-file: ${(e as Error).message}`);
    }
  }
  return errs;
}

/** kube-controller-manager's rule: a name enables, '-name' disables, '*' enables the rest except the off-by-default ones (tokencleaner). */
export function isControllerEnabled(name: string, enabled: string[]): boolean {
  let star = false;
  for (const entry of enabled) {
    if (entry === '*') star = true;
    else if (entry.startsWith('-') && canonical(entry.slice(1)) === name) return false;
    else if (canonical(entry) === name) return true;
  }
  return star && !CONTROLLERS.find((c) => c.name === name)?.offByDefault;
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
