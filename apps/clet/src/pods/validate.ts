// The subset of ValidatePodCreate that matters for static pods, with upstream's field-error wording,
// plus the 1.32+ rule that static pods must not reference API objects.
import { FieldPath, fieldErrors } from '@cl/apimachinery';
import type { Container, Pod } from './api-types';
import { validateContainerLifecycle, validateContainerProbes, validateContainerSecurity, validatePodSecurity } from './validate-security';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

// `seen` is shared by init and regular containers: names are unique across both lists.
function validateContainers(pod: Pod, list: unknown, path: FieldPath, volumeNames: Set<string>, errs: Error[], required: boolean, seen: Set<string>): void {
  if (!Array.isArray(list) || list.length === 0) {
    if (required) errs.push(fieldErrors.required(path));
    return;
  }
  const init = !required;
  list.forEach((raw, i) => {
    const p = path.index(i);
    const c = raw as Container;
    if (typeof c !== 'object' || c === null) {
      errs.push(fieldErrors.invalid(p, raw, 'must be an object'));
      return;
    }
    if (!c.name) errs.push(fieldErrors.required(p.child('name')));
    else if (c.name.length > 63 || !DNS1123_LABEL.test(c.name)) errs.push(fieldErrors.invalid(p.child('name'), c.name, LABEL_MSG));
    else if (seen.has(c.name)) errs.push(fieldErrors.duplicate(p.child('name'), c.name));
    else seen.add(c.name);
    if (!c.image || typeof c.image !== 'string' || !c.image.trim()) errs.push(fieldErrors.required(p.child('image')));
    if (c.imagePullPolicy && !['Always', 'IfNotPresent', 'Never'].includes(c.imagePullPolicy)) {
      errs.push(fieldErrors.notSupported(p.child('imagePullPolicy'), c.imagePullPolicy, ['Always', 'IfNotPresent', 'Never']));
    }
    if (c.restartPolicy !== undefined) {
      if (!init) errs.push(fieldErrors.forbidden(p.child('restartPolicy'), 'may not be set for non-init containers'));
      else if (c.restartPolicy !== 'Always') errs.push(fieldErrors.notSupported(p.child('restartPolicy'), c.restartPolicy, ['Always']));
    }
    for (const [j, m] of (c.volumeMounts ?? []).entries()) {
      if (!volumeNames.has(m.name)) errs.push(fieldErrors.notFound(p.child('volumeMounts').index(j).child('name'), m.name));
      if (!m.mountPath) errs.push(fieldErrors.required(p.child('volumeMounts').index(j).child('mountPath')));
    }
    validateContainerSecurity(pod, c, p, errs);
    validateContainerProbes(c, p, errs);
    validateContainerLifecycle(c, p, errs);
    for (const [j, port] of (c.ports ?? []).entries()) {
      const n = port.containerPort;
      if (!Number.isInteger(n) || n < 1 || n > 65535) {
        errs.push(fieldErrors.invalid(p.child('ports').index(j).child('containerPort'), n, 'must be between 1 and 65535, inclusive'));
      }
    }
  });
}

/** Field errors of a defaulted pod (empty when valid). */
export function validatePod(pod: Pod): string[] {
  const errs: Error[] = [];
  const meta = FieldPath.root('metadata');
  const name = pod.metadata.name ?? '';
  if (!name) errs.push(fieldErrors.required(meta.child('name'), 'name or generateName is required'));
  else if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) errs.push(fieldErrors.invalid(meta.child('name'), name, SUBDOMAIN_MSG));
  const ns = pod.metadata.namespace ?? '';
  if (ns && (ns.length > 63 || !DNS1123_LABEL.test(ns))) errs.push(fieldErrors.invalid(meta.child('namespace'), ns, LABEL_MSG));

  const spec = FieldPath.root('spec');
  const volumeNames = new Set<string>();
  for (const [i, v] of (pod.spec.volumes ?? []).entries()) {
    const p = spec.child('volumes').index(i);
    if (!v.name) errs.push(fieldErrors.required(p.child('name')));
    else if (volumeNames.has(v.name)) errs.push(fieldErrors.duplicate(p.child('name'), v.name));
    else volumeNames.add(v.name);
    if (v.hostPath && !v.hostPath.path) errs.push(fieldErrors.required(p.child('hostPath', 'path')));
  }
  const names = new Set<string>();
  validateContainers(pod, pod.spec.containers, spec.child('containers'), volumeNames, errs, true, names);
  validateContainers(pod, pod.spec.initContainers, spec.child('initContainers'), volumeNames, errs, false, names);
  // Upstream validates a static pod as a pod created through the API, where ephemeral containers cannot be set.
  if (pod.spec.ephemeralContainers?.length) errs.push(fieldErrors.forbidden(spec.child('ephemeralContainers'), 'cannot be set on create'));
  validatePodSecurity(pod, spec, errs);
  const rp = pod.spec.restartPolicy;
  if (rp && !['Always', 'OnFailure', 'Never'].includes(rp)) errs.push(fieldErrors.notSupported(spec.child('restartPolicy'), rp, ['Always', 'OnFailure', 'Never']));
  const grace = pod.spec.terminationGracePeriodSeconds;
  if (grace !== undefined && (!Number.isInteger(grace) || grace < 0)) {
    errs.push(fieldErrors.invalid(spec.child('terminationGracePeriodSeconds'), grace, 'must be greater than or equal to 0'));
  }
  const out = errs.map((e) => e.message);
  const refs = forbiddenReferences(pod);
  if (out.length === 0 && refs.length) {
    throw new Error(`pod "${pod.metadata.name}" has forbidden references to API objects: ${refs.join(', ')}`);
  }
  return out;
}

/** Static pods cannot use API objects (1.32+): the list upstream prints, sorted. */
function forbiddenReferences(pod: Pod): string[] {
  const refs: string[] = [];
  const sa = pod.spec.serviceAccountName;
  if (sa && sa !== 'default') refs.push(`ServiceAccount "${sa}"`);
  for (const v of pod.spec.volumes ?? []) {
    if (v.secret) refs.push(`Secret volume "${v.name}"`);
    if (v.configMap) refs.push(`ConfigMap volume "${v.name}"`);
    if (v.persistentVolumeClaim) refs.push(`PersistentVolumeClaim volume "${v.name}"`);
    if (v.csi) refs.push(`CSI volume "${v.name}"`);
    if (v.ephemeral) refs.push(`Ephemeral volume "${v.name}"`);
    for (const src of ((v.projected as { sources?: Array<Record<string, unknown>> } | undefined)?.sources ?? [])) {
      if (src.configMap) refs.push(`configMap projected volume "${v.name}"`);
      if (src.secret) refs.push(`secret projected volume "${v.name}"`);
      if (src.serviceAccountToken) refs.push(`serviceAccountToken projected volume "${v.name}"`);
    }
  }
  for (const c of [...(pod.spec.containers ?? []), ...(pod.spec.initContainers ?? [])]) {
    for (const e of c.env ?? []) {
      const from = e.valueFrom as { secretKeyRef?: { name?: string }; configMapKeyRef?: { name?: string } } | undefined;
      if (from?.secretKeyRef) refs.push(`Secret "${from.secretKeyRef.name ?? ''}"`);
      if (from?.configMapKeyRef) refs.push(`ConfigMap "${from.configMapKeyRef.name ?? ''}"`);
    }
    for (const f of (c.envFrom ?? []) as Array<{ secretRef?: { name?: string }; configMapRef?: { name?: string } }>) {
      if (f.secretRef) refs.push(`Secret "${f.secretRef.name ?? ''}"`);
      if (f.configMapRef) refs.push(`ConfigMap "${f.configMapRef.name ?? ''}"`);
    }
  }
  return [...new Set(refs)].sort();
}
