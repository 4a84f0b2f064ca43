// Which admission plugins run: upstream's --enable-admission-plugins / --disable-admission-plugins over the
// default set. A name upstream does not know is refused as upstream refuses it; a plugin upstream has that this
// server does not implement is refused at start with a message saying so, rather than accepted and ignored.
import { admissionChain, defaultTolerationSeconds, namespaceLifecycle, priorityAdmission, serviceAccountAdmission, taintNodesByCondition, type Admission, type AdmissionPlugin, type ResourceStore } from '@cl/registry';

/** The plugins this server implements, in upstream's order, each built from the stores it reads. */
const IMPLEMENTED: Record<string, (stores: ReadonlyMap<string, ResourceStore>) => AdmissionPlugin> = {
  NamespaceLifecycle: (stores) => namespaceLifecycle(stores.get('namespaces')!),
  ServiceAccount: (stores) => serviceAccountAdmission(stores.get('serviceaccounts')!),
  TaintNodesByCondition: () => taintNodesByCondition(),
  DefaultTolerationSeconds: () => defaultTolerationSeconds(),
  Priority: (stores) => priorityAdmission(stores.get('priorityclasses.scheduling.k8s.io')!),
};

// Upstream 1.33's admission plugin names (kube-apiserver --help), for telling "unknown" from "not implemented".
const UPSTREAM = [
  'AlwaysAdmit', 'AlwaysDeny', 'AlwaysPullImages', 'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction',
  'ClusterTrustBundleAttest', 'DefaultIngressClass', 'DefaultStorageClass', 'DefaultTolerationSeconds', 'DenyServiceExternalIPs',
  'EventRateLimit', 'ExtendedResourceToleration', 'ImagePolicyWebhook', 'LimitPodHardAntiAffinityTopology', 'LimitRanger',
  'MutatingAdmissionPolicy', 'MutatingAdmissionWebhook', 'NamespaceAutoProvision', 'NamespaceExists', 'NamespaceLifecycle',
  'NodeRestriction', 'OwnerReferencesPermissionEnforcement', 'PersistentVolumeClaimResize', 'PodNodeSelector', 'PodSecurity',
  'PodTolerationRestriction', 'Priority', 'ResourceQuota', 'RuntimeClass', 'ServiceAccount', 'StorageObjectInUseProtection',
  'TaintNodesByCondition', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook',
];

/** Enabled by default here: the implemented part of upstream's default set. */
export const DEFAULT_ADMISSION_PLUGINS = ['NamespaceLifecycle', 'ServiceAccount', 'TaintNodesByCondition', 'Priority', 'DefaultTolerationSeconds'];

export function validateAdmissionFlags(enable: readonly string[], disable: readonly string[]): string[] {
  const errs: string[] = [];
  for (const [flag, names] of [['enable-admission-plugins', enable], ['disable-admission-plugins', disable]] as const) {
    for (const name of names) if (!UPSTREAM.includes(name)) errs.push(`${flag} plugin ${JSON.stringify(name)} is unknown`);
  }
  for (const name of enable) {
    if (UPSTREAM.includes(name) && !IMPLEMENTED[name]) errs.push(`enable-admission-plugins plugin ${JSON.stringify(name)} is not supported by this server (supported: ${Object.keys(IMPLEMENTED).join(', ')})`);
    if (disable.includes(name)) errs.push(`${name} in enable-admission-plugins and disable-admission-plugins overlapped`);
  }
  return errs;
}

export function enabledAdmissionPlugins(enable: readonly string[], disable: readonly string[]): string[] {
  const on = new Set([...DEFAULT_ADMISSION_PLUGINS, ...enable].filter((n) => !disable.includes(n)));
  // Upstream runs plugins in its fixed order, whatever order the flag lists them in.
  return UPSTREAM.filter((n) => on.has(n) && IMPLEMENTED[n]);
}

export function buildAdmission(names: readonly string[], stores: readonly ResourceStore[]): Admission {
  const byResource = new Map(stores.map((s) => [s.def.group ? `${s.def.plural}.${s.def.group}` : s.def.plural, s]));
  return admissionChain(names.map((n) => IMPLEMENTED[n](byResource)));
}
