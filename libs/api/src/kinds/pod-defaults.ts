// Defaults of core/v1 pods and nodes as kube-apiserver 1.33 applies them on decode (pkg/apis/core/v1/defaults.go
// and the generated SetObjectDefaults_Pod / SetObjectDefaults_Node), for what a field's own schema `default`
// cannot say: values that depend on other fields, and Go's "zero means unset" for non-pointer fields ("" and 0
// are defaulted as a missing field is). Feature-gated defaults that are off by default in 1.33 (pod-level
// resources, image volume pull policy) are not applied. Resource quantities are kept as written (upstream rounds
// them up to milli units).
import type { Node } from './node-v1';
import type { Container, Pod, PodSpec } from './pod-v1';

type Obj = Record<string, unknown>;
type Volume = NonNullable<PodSpec['volumes']>[number];
type Probe = NonNullable<Container['livenessProbe']>;
type HttpGet = NonNullable<Probe['httpGet']>;
type ResourceList = NonNullable<NonNullable<Container['resources']>['limits']>;
/** What container defaulting reads: the fields Container and EphemeralContainer share. */
type ContainerLike = Pick<Container, 'image' | 'imagePullPolicy' | 'terminationMessagePath' | 'terminationMessagePolicy' | 'ports' | 'env' | 'resources' | 'livenessProbe' | 'readinessProbe' | 'startupProbe' | 'lifecycle'>;

/** Permission bits of secret, config map, downward API and projected volume files: 0644. */
const DEFAULT_MODE = 0o644;

const unset = (v: unknown) => v === undefined || v === null;
/** Go's zero value of a non-pointer field, as JSON decoding leaves it. */
const zero = (v: unknown) => v === undefined || v === null || v === '' || v === 0;
/** The items of a list, without the nulls JSON may carry in it. */
const items = <T>(list: readonly (T | null | undefined)[] | null | undefined): T[] => (list ?? []).filter((x): x is T => !unset(x));

export function setPodDefaults(pod: Pod): void {
  // Spec is a struct, not a pointer, in Go: a pod without one still gets the spec defaults.
  const spec = (pod.spec ??= {});
  const containers = items(spec.containers);
  const initContainers = items(spec.initContainers);

  // SetDefaults_Pod.
  for (const c of [...containers, ...initContainers]) defaultRequestsToLimits(c);
  if (unset(spec.enableServiceLinks)) spec.enableServiceLinks = true;
  if (spec.hostNetwork) {
    for (const c of [...containers, ...initContainers]) for (const p of items(c.ports)) if (zero(p.hostPort)) p.hostPort = p.containerPort;
  }

  // SetDefaults_PodSpec.
  if (zero(spec.dnsPolicy)) spec.dnsPolicy = 'ClusterFirst';
  if (zero(spec.restartPolicy)) spec.restartPolicy = 'Always';
  if (unset(spec.securityContext)) spec.securityContext = {};
  if (unset(spec.terminationGracePeriodSeconds)) spec.terminationGracePeriodSeconds = 30;
  if (zero(spec.schedulerName)) spec.schedulerName = 'default-scheduler';

  for (const v of items(spec.volumes)) defaultVolume(v);
  for (const c of [...initContainers, ...containers, ...items(spec.ephemeralContainers)]) defaultContainer(c);
}

/** Requests taken from limits where a request is missing (pods only, not pod templates). */
function defaultRequestsToLimits(c: ContainerLike) {
  const resources = c.resources;
  if (!resources || unset(resources.limits)) return;
  const missing = Object.entries(resources.limits as ResourceList).filter(([name]) => unset(resources.requests) || !(name in (resources.requests as ResourceList)));
  if (!missing.length) return;
  const requests = (resources.requests ??= {});
  for (const [name, value] of missing) requests[name] = value;
}

function defaultContainer(c: ContainerLike) {
  if (zero(c.imagePullPolicy)) c.imagePullPolicy = imageTag(c.image ?? '') === 'latest' ? 'Always' : 'IfNotPresent';
  if (zero(c.terminationMessagePath)) c.terminationMessagePath = '/dev/termination-log';
  if (zero(c.terminationMessagePolicy)) c.terminationMessagePolicy = 'File';
  for (const p of items(c.ports)) if (zero(p.protocol)) p.protocol = 'TCP';
  for (const e of items(c.env)) defaultFieldRef(e.valueFrom?.fieldRef);
  for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) {
    if (!probe) continue;
    if (zero(probe.timeoutSeconds)) probe.timeoutSeconds = 1;
    if (zero(probe.periodSeconds)) probe.periodSeconds = 10;
    if (zero(probe.successThreshold)) probe.successThreshold = 1;
    if (zero(probe.failureThreshold)) probe.failureThreshold = 3;
    defaultHttpGet(probe.httpGet);
  }
  defaultHttpGet(c.lifecycle?.postStart?.httpGet);
  defaultHttpGet(c.lifecycle?.preStop?.httpGet);
}

function defaultHttpGet(h: HttpGet | null | undefined) {
  if (!h) return;
  if (zero(h.path)) h.path = '/';
  if (zero(h.scheme)) h.scheme = 'HTTP';
}

function defaultFieldRef(ref: { apiVersion?: string } | null | undefined) {
  if (ref && zero(ref.apiVersion)) ref.apiVersion = 'v1';
}

function defaultVolume(v: Volume) {
  // A volume that names no source is an emptyDir.
  if (Object.entries(v).every(([k, value]) => k === 'name' || unset(value))) v.emptyDir = {};
  if (v.hostPath && unset(v.hostPath.type)) v.hostPath.type = '';
  for (const source of [v.secret, v.configMap, v.downwardAPI, v.projected]) if (source && unset(source.defaultMode)) source.defaultMode = DEFAULT_MODE;
  for (const item of items(v.downwardAPI?.items)) defaultFieldRef(item.fieldRef);
  for (const source of items(v.projected?.sources)) {
    for (const item of items(source.downwardAPI?.items)) defaultFieldRef(item.fieldRef);
    if (source.serviceAccountToken && unset(source.serviceAccountToken.expirationSeconds)) source.serviceAccountToken.expirationSeconds = 3600;
  }
  const template = v.ephemeral?.volumeClaimTemplate;
  if (template) {
    const claimSpec = (template.spec ??= {});
    if (unset(claimSpec.volumeMode)) claimSpec.volumeMode = 'Filesystem';
  }
  // Legacy sources: their non-pointer string defaults ("" counts as unset; a missing field got its schema default).
  defaultStrings(v.iscsi, { iscsiInterface: 'default' });
  defaultStrings(v.rbd, { pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' });
  defaultStrings(v.scaleIO, { storageMode: 'ThinProvisioned', fsType: 'xfs' });
}

function defaultStrings(source: object | null | undefined, defaults: Record<string, string>) {
  if (!source) return;
  const o = source as Obj;
  for (const [k, value] of Object.entries(defaults)) if (zero(o[k])) o[k] = value;
}

/** SetObjectDefaults_Node: allocatable is the capacity when the node reports none. */
export function setNodeDefaults(node: Node): void {
  const status = node.status;
  if (!status || unset(status.capacity) || !unset(status.allocatable)) return;
  status.allocatable = { ...status.capacity };
}

// ---- image references (distribution/reference grammar, as parsers.ParseImageName reads them) ----

const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const REFERENCE = new RegExp(`^(${NAME})(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*):([0-9a-fA-F]{32,}))?$`);
const DIGEST_LENGTHS: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

/**
 * The tag of an image reference as the kubelet's parser reads it: the tag when one is given, "latest" when
 * neither a tag nor a digest is, "" for a digest alone or a reference that does not parse.
 */
export function imageTag(image: string): string {
  if (/^[a-f0-9]{64}$/.test(image)) return '';
  const m = REFERENCE.exec(image);
  if (!m) return '';
  const [, name, tag, algorithm, hex] = m;
  if (name.length > 255) return '';
  if (algorithm !== undefined) {
    const length = DIGEST_LENGTHS[algorithm];
    if (!length || hex.length !== length || !/^[a-f0-9]+$/.test(hex)) return '';
  }
  if (tag) return tag;
  return algorithm ? '' : 'latest';
}
