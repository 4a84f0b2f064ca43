// Manifest decoding for static pods: YAML or JSON -> core/v1 Pod with API defaulting, validation, and
// the static-pod fields (name suffix, content-hash UID, config annotations) that upstream's
// pkg/kubelet/config/common.go applies.
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import type { Container, Pod } from './api-types';
import { validatePod } from './validate';

export const CONFIG_HASH_ANNOTATION = 'kubernetes.io/config.hash';
export const CONFIG_SOURCE_ANNOTATION = 'kubernetes.io/config.source';
export const CONFIG_SEEN_ANNOTATION = 'kubernetes.io/config.seen';
/** Upstream caps one manifest at 10 MiB. */
export const MAX_CONFIG_LENGTH = 10 * 1024 * 1024;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses YAML (a superset of JSON) into a plain value; throws with the parser's message. */
export function parseManifest(text: string): unknown {
  // JSON is YAML too, and JSON.parse is some hundred times faster; YAML gives the error messages.
  if (/^\s*[{[]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch { /* not plain JSON: YAML flow syntax or broken; the YAML parser decides */ }
  }
  return parseYaml(text, { version: '1.1', prettyErrors: false, uniqueKeys: false });
}

function hasTagOrDigest(image: string): boolean {
  if (image.includes('@')) return true;
  const last = image.slice(image.lastIndexOf('/') + 1);
  return last.includes(':');
}

function imageTag(image: string): string {
  if (image.includes('@')) return '';
  const last = image.slice(image.lastIndexOf('/') + 1);
  const i = last.indexOf(':');
  return i < 0 ? '' : last.slice(i + 1);
}

function defaultContainer(c: Container): void {
  if (!c.terminationMessagePath) c.terminationMessagePath = '/dev/termination-log';
  if (!c.terminationMessagePolicy) c.terminationMessagePolicy = 'File';
  if (!c.imagePullPolicy && typeof c.image === 'string') {
    const tag = imageTag(c.image);
    c.imagePullPolicy = !hasTagOrDigest(c.image) || tag === 'latest' ? 'Always' : 'IfNotPresent';
  }
  for (const p of c.ports ?? []) if (isObject(p) && !p.protocol) p.protocol = 'TCP';
}

/** The API server's defaulting for the fields the node agent relies on. */
export function applyApiDefaults(pod: Pod): void {
  const s = pod.spec;
  if (!s.restartPolicy) s.restartPolicy = 'Always';
  if (!s.dnsPolicy) s.dnsPolicy = 'ClusterFirst';
  if (s.terminationGracePeriodSeconds === undefined) s.terminationGracePeriodSeconds = 30;
  if (!s.schedulerName) s.schedulerName = 'default-scheduler';
  if (s.enableServiceLinks === undefined) s.enableServiceLinks = true;
  if (!s.securityContext) s.securityContext = {};
  for (const c of s.containers ?? []) if (isObject(c)) defaultContainer(c);
  for (const c of s.initContainers ?? []) if (isObject(c)) defaultContainer(c);
  for (const v of s.volumes ?? []) {
    if (isObject(v) && v.hostPath && v.hostPath.type === undefined) v.hostPath.type = '';
  }
}

/** Stable JSON (sorted keys) so equal objects hash equally whatever their key order in the file. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return '[' + v.map(canonicalJson).join(',') + ']';
  if (isObject(v)) {
    return '{' + Object.keys(v).sort().filter((k) => v[k] !== undefined).map((k) => JSON.stringify(k) + ':' + canonicalJson(v[k])).join(',') + '}';
  }
  return JSON.stringify(v) ?? 'null';
}

export interface StaticPodSource { kind: 'file' | 'http'; /** file path or URL */ location: string }

/**
 * Turns one decoded object into a static pod (upstream applyDefaults + validation). Throws an Error
 * whose message is what the source logs.
 */
export function toStaticPod(obj: unknown, source: StaticPodSource, nodeName: string): Pod {
  if (!isObject(obj)) throw new Error('object is not a Pod');
  if (obj.kind !== undefined && obj.kind !== 'Pod') throw new Error(`kind "${String(obj.kind)}" is not Pod`);
  if (obj.apiVersion !== undefined && obj.apiVersion !== 'v1') throw new Error(`apiVersion "${String(obj.apiVersion)}" is not v1`);
  const pod = structuredClone(obj) as unknown as Pod;
  if (!isObject(pod.metadata)) pod.metadata = {};
  if (!isObject(pod.spec)) pod.spec = { containers: [] };
  pod.apiVersion = 'v1';
  pod.kind = 'Pod';
  delete pod.status;
  applyApiDefaults(pod);

  const m = pod.metadata;
  if (!m.uid) {
    // Upstream hashes the whole decoded pod plus host and source; a content change means a new pod.
    const h = createHash('md5');
    h.update(canonicalJson(pod));
    h.update(`host:${nodeName}`);
    h.update(source.kind === 'file' ? `file:${source.location}` : `url:${source.location}`);
    m.uid = h.digest('hex');
  }
  m.name = `${m.name ?? ''}-${nodeName.toLowerCase()}`;
  if (!m.namespace) m.namespace = 'default';
  pod.spec.nodeName = nodeName;
  m.annotations = { ...(m.annotations ?? {}), [CONFIG_HASH_ANNOTATION]: m.uid };
  if (source.kind === 'file') {
    pod.spec.tolerations = [...(pod.spec.tolerations ?? []), { operator: 'Exists', effect: 'NoExecute' }];
  }
  pod.status = { phase: 'Pending' };
  const errs = validatePod(pod);
  if (errs.length) throw new Error(`invalid pod: [${errs.join(', ')}]`);
  return pod;
}

/** A file's content as one static pod; errors use upstream's wording. */
export function decodeFilePod(text: string, file: string, nodeName: string): Pod {
  let obj: unknown;
  try {
    obj = parseManifest(text);
  } catch (e) {
    throw new Error(`${file}: couldn't parse as pod(${(e as Error).message}), please check config file`);
  }
  try {
    return toStaticPod(obj, { kind: 'file', location: file }, nodeName);
  } catch (e) {
    const msg = (e as Error).message;
    throw new Error(msg.startsWith('invalid pod') || msg.startsWith('pod "') ? msg : `${file}: couldn't parse as pod(${msg}), please check config file`);
  }
}

/** An HTTP body as a Pod or a PodList (upstream tries both). */
export function decodeUrlPods(text: string, url: string, nodeName: string): Pod[] {
  let obj: unknown;
  try {
    obj = parseManifest(text);
  } catch (e) {
    const m = (e as Error).message;
    throw new Error(`${url}: received '${text}', but couldn't parse as single (${m}) or multiple pods (${m}).`);
  }
  const src: StaticPodSource = { kind: 'http', location: url };
  if (isObject(obj) && obj.kind === 'PodList') {
    const items = Array.isArray(obj.items) ? obj.items : [];
    return items.map((it) => toStaticPod(it, src, nodeName));
  }
  let single: Error;
  try {
    return [toStaticPod(obj, src, nodeName)];
  } catch (e) {
    single = e as Error;
  }
  throw new Error(`${url}: received '${text}', but couldn't parse as single (${single.message}) or multiple pods (kind is not PodList).`);
}
