// The pod spec checks users hit most, with upstream's field paths and messages (pkg/apis/core/validation):
// containers and their names, images, ports, env, volume mounts naming real volumes, volumes with exactly one
// source, resources (quantities, requests not above limits), ephemeral containers (only debugging fields, a real
// target), restart and DNS policies, node selectors and tolerations. And the QoS class the resources put the pod in.
import {
  fieldErrors,
  FieldPath,
  isDNS1123Label,
  isQualifiedName,
  isValidLabelValue,
  parseQuantity,
  QuantityError,
  type FieldError,
  type KubeObject,
  type Quantity,
} from '@cl/apimachinery';

interface Container {
  name?: string;
  image?: string;
  ports?: Array<{ name?: string; containerPort?: number; hostPort?: number; protocol?: string }>;
  env?: Array<{ name?: string; value?: string; valueFrom?: unknown }>;
  volumeMounts?: Array<{ name?: string; mountPath?: string; subPath?: string; subPathExpr?: string }>;
  resources?: { limits?: Record<string, unknown>; requests?: Record<string, unknown> };
}

export interface EphemeralContainer extends Container {
  targetContainerName?: string;
  [field: string]: unknown;
}

interface Spec {
  containers?: Container[];
  initContainers?: Container[];
  ephemeralContainers?: EphemeralContainer[];
  volumes?: Array<Record<string, unknown> & { name?: string }>;
  restartPolicy?: string;
  dnsPolicy?: string;
  nodeSelector?: Record<string, string>;
  tolerations?: Array<{ key?: string; operator?: string; value?: string; effect?: string; tolerationSeconds?: number }>;
  activeDeadlineSeconds?: number;
}

const SPEC = FieldPath.root('spec');
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

const specOf = (o: KubeObject) => ((o as { spec?: Spec }).spec ?? {}) as Spec;

function quantities(map: Record<string, unknown> | undefined, path: FieldPath, errs: FieldError[]): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  for (const [name, raw] of Object.entries(map ?? {})) {
    try {
      const q = parseQuantity(raw);
      if (q.sign() < 0) errs.push(fieldErrors.invalid(path.key(name), String(raw), 'must be greater than or equal to 0'));
      out.set(name, q);
    } catch (e) {
      if (!(e instanceof QuantityError)) throw e;
      errs.push(fieldErrors.invalid(path.key(name), String(raw), e.message));
    }
  }
  return out;
}

function validateResources(c: Container, path: FieldPath, errs: FieldError[]) {
  const limits = quantities(c.resources?.limits, path.child('limits'), errs);
  const requests = quantities(c.resources?.requests, path.child('requests'), errs);
  for (const [name, request] of requests) {
    const limit = limits.get(name);
    if (limit && request.cmp(limit) > 0) {
      errs.push(fieldErrors.invalid(path.child('requests').key(name), request.toString(), `must be less than or equal to ${name} limit of ${limit.toString()}`));
    }
  }
}

function validateContainer(c: Container, path: FieldPath, volumes: Set<string>, errs: FieldError[]) {
  if (!c.name) errs.push(fieldErrors.required(path.child('name')));
  else for (const m of isDNS1123Label(c.name)) errs.push(fieldErrors.invalid(path.child('name'), c.name, m));
  if (!c.image) errs.push(fieldErrors.required(path.child('image')));
  for (const [i, p] of (c.ports ?? []).entries()) {
    const pp = path.child('ports').index(i);
    if (p.containerPort === undefined || p.containerPort === 0) errs.push(fieldErrors.required(pp.child('containerPort')));
    else if (p.containerPort < 1 || p.containerPort > 65535) errs.push(fieldErrors.invalid(pp.child('containerPort'), p.containerPort, 'must be between 1 and 65535, inclusive'));
    if (p.hostPort !== undefined && p.hostPort !== 0 && (p.hostPort < 1 || p.hostPort > 65535)) errs.push(fieldErrors.invalid(pp.child('hostPort'), p.hostPort, 'must be between 1 and 65535, inclusive'));
    if (p.protocol && !PROTOCOLS.includes(p.protocol)) errs.push(fieldErrors.notSupported(pp.child('protocol'), p.protocol, PROTOCOLS));
  }
  for (const [i, e] of (c.env ?? []).entries()) {
    const ep = path.child('env').index(i);
    if (!e.name) errs.push(fieldErrors.required(ep.child('name')));
    if (e.value && e.valueFrom) errs.push(fieldErrors.invalid(ep.child('valueFrom'), '', 'may not be specified when `value` is not empty'));
  }
  const mountPaths = new Set<string>();
  for (const [i, m] of (c.volumeMounts ?? []).entries()) {
    const mp = path.child('volumeMounts').index(i);
    if (!m.name) errs.push(fieldErrors.required(mp.child('name')));
    else if (!volumes.has(m.name)) errs.push(fieldErrors.notFound(mp.child('name'), m.name));
    if (!m.mountPath) errs.push(fieldErrors.required(mp.child('mountPath')));
    else if (mountPaths.has(m.mountPath)) errs.push(fieldErrors.invalid(mp.child('mountPath'), m.mountPath, 'must be unique'));
    else mountPaths.add(m.mountPath);
  }
  validateResources(c, path.child('resources'), errs);
}

function validateVolumes(spec: Spec, errs: FieldError[]): Set<string> {
  const names = new Set<string>();
  for (const [i, v] of (spec.volumes ?? []).entries()) {
    const vp = SPEC.child('volumes').index(i);
    if (!v.name) errs.push(fieldErrors.required(vp.child('name')));
    else {
      for (const m of isDNS1123Label(v.name)) errs.push(fieldErrors.invalid(vp.child('name'), v.name, m));
      if (names.has(v.name)) errs.push(fieldErrors.duplicate(vp.child('name'), v.name));
      names.add(v.name);
    }
    const sources = Object.keys(v).filter((k) => k !== 'name' && v[k] !== undefined && v[k] !== null);
    if (sources.length === 0) errs.push(fieldErrors.required(vp, 'must specify a volume type'));
    else if (sources.length > 1) errs.push(fieldErrors.forbidden(vp.child(sources[1]), 'may not specify more than 1 volume type'));
  }
  return names;
}

/**
 * The fields an ephemeral container may not set, in the order of upstream's struct: a debugging container must not
 * become part of the workload (no ports, resources, probes or lifecycle hooks).
 */
const EPHEMERAL_FORBIDDEN = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'];

/** Whether a JSON value is set as Go sees a struct field: not absent, null, or an empty list, map or struct. */
function isSet(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.values(v as object).some(isSet);
  return true;
}

/** Upstream's validateEphemeralContainers: container rules, names unique across all containers, a real target. */
function validateEphemeralContainers(spec: Spec, volumes: Set<string>, errs: FieldError[]) {
  const list = spec.ephemeralContainers ?? [];
  if (!list.length) return;
  const others = new Set([...(spec.containers ?? []), ...(spec.initContainers ?? [])].map((c) => c?.name).filter((n): n is string => !!n));
  const all = new Set(others);
  for (const [i, ec] of list.entries()) {
    if (!ec) continue;
    const path = SPEC.child('ephemeralContainers').index(i);
    validateContainer(ec, path, volumes, errs);
    if (ec.image && ec.image.trim() !== ec.image) errs.push(fieldErrors.invalid(path.child('image'), ec.image, 'must not have leading or trailing whitespace'));
    if (ec.name && all.has(ec.name)) errs.push(fieldErrors.duplicate(path.child('name'), ec.name));
    else if (ec.name) all.add(ec.name);
    if (ec.targetContainerName && !others.has(ec.targetContainerName)) errs.push(fieldErrors.notFound(path.child('targetContainerName'), ec.targetContainerName));
    for (const field of EPHEMERAL_FORBIDDEN) if (isSet(ec[field])) errs.push(fieldErrors.forbidden(path.child(field), 'cannot be set for an Ephemeral Container'));
    for (const [j, m] of (ec.volumeMounts ?? []).entries()) {
      // Subpaths are bind mounts kept until the pod exits: a debugging container may not leave them behind.
      if (m?.subPath) errs.push(fieldErrors.forbidden(path.child('volumeMounts').index(j).child('subPath'), 'cannot be set for an Ephemeral Container'));
      if (m?.subPathExpr) errs.push(fieldErrors.forbidden(path.child('volumeMounts').index(j).child('subPathExpr'), 'cannot be set for an Ephemeral Container'));
    }
  }
}

/** Upstream's ValidatePodCreate rule: ephemeral containers are added to running pods only (pods/ephemeralcontainers). */
export function validatePodCreate(o: KubeObject): FieldError[] {
  return specOf(o).ephemeralContainers?.length ? [fieldErrors.forbidden(SPEC.child('ephemeralContainers'), 'cannot be set on create')] : [];
}

export function validatePodSpec(o: KubeObject): FieldError[] {
  const spec = specOf(o);
  const errs: FieldError[] = [];
  const volumes = validateVolumes(spec, errs);
  if (!spec.containers?.length) errs.push(fieldErrors.required(SPEC.child('containers')));
  const names = new Set<string>();
  for (const [field, list] of [['initContainers', spec.initContainers], ['containers', spec.containers]] as const) {
    for (const [i, c] of (list ?? []).entries()) {
      const path = SPEC.child(field).index(i);
      validateContainer(c, path, volumes, errs);
      if (c.name && names.has(c.name)) errs.push(fieldErrors.duplicate(path.child('name'), c.name));
      if (c.name) names.add(c.name);
    }
  }
  validateEphemeralContainers(spec, volumes, errs);
  if (spec.restartPolicy && !RESTART_POLICIES.includes(spec.restartPolicy)) errs.push(fieldErrors.notSupported(SPEC.child('restartPolicy'), spec.restartPolicy, RESTART_POLICIES));
  if (spec.dnsPolicy && !DNS_POLICIES.includes(spec.dnsPolicy)) errs.push(fieldErrors.notSupported(SPEC.child('dnsPolicy'), spec.dnsPolicy, DNS_POLICIES));
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds <= 0) errs.push(fieldErrors.invalid(SPEC.child('activeDeadlineSeconds'), spec.activeDeadlineSeconds, 'must be between 1 and 2147483647, inclusive'));
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) {
    for (const m of isQualifiedName(k)) errs.push(fieldErrors.invalid(SPEC.child('nodeSelector'), k, m));
    for (const m of isValidLabelValue(v)) errs.push(fieldErrors.invalid(SPEC.child('nodeSelector').key(k), v, m));
  }
  for (const [i, t] of (spec.tolerations ?? []).entries()) {
    const tp = SPEC.child('tolerations').index(i);
    const op = t.operator ?? 'Equal';
    if (op !== 'Equal' && op !== 'Exists') errs.push(fieldErrors.notSupported(tp.child('operator'), op, ['Equal', 'Exists']));
    if (op === 'Exists' && t.value) errs.push(fieldErrors.invalid(tp.child('operator'), t.value, "value must be empty when `operator` is 'Exists'"));
    if (!t.key && op !== 'Exists') errs.push(fieldErrors.invalid(tp.child('operator'), op, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""));
    if (t.key) for (const m of isQualifiedName(t.key)) errs.push(fieldErrors.invalid(tp.child('key'), t.key, m));
    if (t.effect && !EFFECTS.includes(t.effect)) errs.push(fieldErrors.notSupported(tp.child('effect'), t.effect, EFFECTS));
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') errs.push(fieldErrors.invalid(tp.child('effect'), t.effect ?? '', 'effect must be \'NoExecute\' when `tolerationSeconds` is set'));
  }
  return errs;
}
