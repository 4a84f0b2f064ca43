// Which admission plugins run: upstream's --enable-admission-plugins / --disable-admission-plugins over the
// default set. A name upstream does not know is refused as upstream refuses it; a plugin upstream has that this
// server does not implement is refused at start with a message saying so, rather than accepted and ignored.
import {
  admissionChain,
  defaultTolerationSeconds,
  limitRanger,
  namespaceLifecycle,
  priorityAdmission,
  resourceQuotaAdmission,
  serviceAccountAdmission,
  taintNodesByCondition,
  type Admission,
  type AdmissionPlugin,
  type ResourceStore,
} from '@cl/registry';
import { nodeRestriction } from './authz/node-restriction';

// Upstream 1.33's admission plugins in the order kube-apiserver runs them (pkg/kubeapiserver/options/plugins.go
// AllOrderedPlugins): namespace checks first, defaulting plugins next, webhooks and ResourceQuota last, so quota
// charges the object as every other plugin left it. The names also tell "unknown" from "not implemented".
const UPSTREAM_ORDER = [
  'AlwaysAdmit', 'NamespaceAutoProvision', 'NamespaceLifecycle', 'NamespaceExists', 'LimitPodHardAntiAffinityTopology', 'LimitRanger',
  'ServiceAccount', 'NodeRestriction', 'TaintNodesByCondition', 'AlwaysPullImages', 'ImagePolicyWebhook', 'PodSecurity', 'PodNodeSelector',
  'Priority', 'DefaultTolerationSeconds', 'PodTolerationRestriction', 'EventRateLimit', 'ExtendedResourceToleration', 'DefaultStorageClass',
  'StorageObjectInUseProtection', 'OwnerReferencesPermissionEnforcement', 'PersistentVolumeClaimResize', 'RuntimeClass', 'CertificateApproval',
  'CertificateSigning', 'ClusterTrustBundleAttest', 'CertificateSubjectRestriction', 'DefaultIngressClass', 'DenyServiceExternalIPs',
  'MutatingAdmissionPolicy', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'ResourceQuota', 'AlwaysDeny',
];

/** The plugins this server implements, each built from the stores it reads (listed in upstream's order). */
const IMPLEMENTED: Record<string, (stores: ReadonlyMap<string, ResourceStore>) => AdmissionPlugin> = {
  NamespaceLifecycle: (stores) => namespaceLifecycle(stores.get('namespaces')!),
  LimitRanger: (stores) => limitRanger(stores.get('limitranges')!),
  ServiceAccount: (stores) => serviceAccountAdmission(stores.get('serviceaccounts')!),
  NodeRestriction: () => nodeRestriction(),
  TaintNodesByCondition: () => taintNodesByCondition(),
  Priority: (stores) => priorityAdmission(stores.get('priorityclasses.scheduling.k8s.io')!),
  DefaultTolerationSeconds: () => defaultTolerationSeconds(),
  ResourceQuota: (stores) => resourceQuotaAdmission(stores.get('resourcequotas')!),
};

/** Enabled by default here: the implemented part of upstream 1.33's default set (defaultOnPlugins), in order. */
export const DEFAULT_ADMISSION_PLUGINS = ['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'TaintNodesByCondition', 'Priority', 'DefaultTolerationSeconds', 'ResourceQuota'];

export function validateAdmissionFlags(enable: readonly string[], disable: readonly string[]): string[] {
  const errs: string[] = [];
  for (const [flag, names] of [['enable-admission-plugins', enable], ['disable-admission-plugins', disable]] as const) {
    for (const name of names) if (!UPSTREAM_ORDER.includes(name)) errs.push(`${flag} plugin ${JSON.stringify(name)} is unknown`);
  }
  for (const name of enable) {
    if (UPSTREAM_ORDER.includes(name) && !IMPLEMENTED[name]) errs.push(`enable-admission-plugins plugin ${JSON.stringify(name)} is not supported by this server (supported: ${Object.keys(IMPLEMENTED).join(', ')})`);
    if (disable.includes(name)) errs.push(`${name} in enable-admission-plugins and disable-admission-plugins overlapped`);
  }
  return errs;
}

export function enabledAdmissionPlugins(enable: readonly string[], disable: readonly string[]): string[] {
  const on = new Set([...DEFAULT_ADMISSION_PLUGINS, ...enable].filter((n) => !disable.includes(n)));
  // Upstream runs plugins in its fixed order, whatever order the flag lists them in.
  return UPSTREAM_ORDER.filter((n) => on.has(n) && IMPLEMENTED[n]);
}

export function buildAdmission(names: readonly string[], stores: readonly ResourceStore[]): Admission {
  const byResource = new Map(stores.map((s) => [s.def.group ? `${s.def.plural}.${s.def.group}` : s.def.plural, s]));
  return admissionChain(names.map((n) => IMPLEMENTED[n](byResource)));
}
