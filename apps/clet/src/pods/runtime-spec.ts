// Pod and container specs -> CRI sandbox and container configs, with upstream's labels, annotations,
// log paths, DNS, namespaces, mounts and resources (pkg/kubelet/kuberuntime).
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ContainerConfig, DNSConfig, Mount, NamespaceOption, PodSandboxConfig, PortMapping } from '@cl/cri';
import type { Container, Pod } from './api-types';
import { canonicalJson } from './decode';
import { linuxResources, parseQuantity } from './quantity';
import { milliCpuToQuota } from '../cgroups/resources';
import { appArmorOf, containerSecurity, sandboxSecurity, sandboxSysctls, type SecurityOptions } from './security-context';
import { EMPTY_ENV, type ResolvedEnv } from '../volumes/env';

export const LABEL_POD_NAME = 'io.kubernetes.pod.name';
export const LABEL_POD_NAMESPACE = 'io.kubernetes.pod.namespace';
export const LABEL_POD_UID = 'io.kubernetes.pod.uid';
export const LABEL_CONTAINER_NAME = 'io.kubernetes.container.name';
export const ANN_CONTAINER_HASH = 'io.kubernetes.container.hash';
export const ANN_RESTART_COUNT = 'io.kubernetes.container.restartCount';
export const ANN_TERMINATION_MESSAGE_PATH = 'io.kubernetes.container.terminationMessagePath';
export const ANN_TERMINATION_MESSAGE_POLICY = 'io.kubernetes.container.terminationMessagePolicy';
export const ANN_GRACE_PERIOD = 'io.kubernetes.pod.terminationGracePeriod';
export const ANN_PORTS = 'io.kubernetes.container.ports';
export const ANN_PRESTOP = 'io.kubernetes.container.preStopHandler';

export interface RuntimeSpecContext {
  podLogsDir: string;
  /** Where the legacy `<pod>_<namespace>_<container>-<id>.log` symlinks go (upstream /var/log/containers). */
  containerLogsDir: string;
  rootDir: string;
  resolvConf: string;
  clusterDNS: string[];
  clusterDomain: string;
  nodeIP: string;
  /** --seccomp-default and the Localhost profile root (<root-dir>/seccomp). */
  security: SecurityOptions;
  /** Set by the agent that manages cgroups: each pod's cgroup_parent and the CFS settings of container CPU limits. */
  cgroups?: PodCgroupContext;
}

export interface PodCgroupContext {
  /** The sandbox's cgroup_parent ("/kubepods/burstable/pod<uid>"), '' for the runtime's default. */
  parentOf(pod: Pod): string;
  /** --cpu-cfs-quota: false sends no CPU quota. */
  cpuCFSQuota: boolean;
  /** --cpu-cfs-quota-period in microseconds. */
  cpuPeriodUs: number;
}

export function podFullName(pod: Pod): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}`;
}

export function podLogDir(ctx: RuntimeSpecContext, pod: Pod): string {
  return path.join(ctx.podLogsDir, `${pod.metadata.namespace}_${pod.metadata.name}_${pod.metadata.uid}`);
}

const LEGACY_LOG_SUFFIX = '.log';
const MAX_LOG_FILENAME = 255;

/** The legacy symlink path of a container's log, cut to a 255-byte file name as upstream does. */
export function legacyLogSymlink(containersDir: string, podName: string, namespace: string, containerName: string, containerId: string): string {
  const name = `${podName}_${namespace}_${containerName}-${containerId}`.slice(0, MAX_LOG_FILENAME - LEGACY_LOG_SUFFIX.length);
  return path.join(containersDir, name + LEGACY_LOG_SUFFIX);
}

/** The container ID in a legacy symlink's name (what follows the last '-'), or '' when there is none. */
export function containerIdOfLegacySymlink(file: string): string {
  const base = path.basename(file, LEGACY_LOG_SUFFIX);
  const i = base.lastIndexOf('-');
  return i < 0 ? '' : base.slice(i + 1);
}

export function podDir(ctx: RuntimeSpecContext, uid: string): string {
  return path.join(ctx.rootDir, 'pods', uid);
}

/** A short stable hash of the container spec: a change means the container must be recreated. */
export function containerHash(c: Container): string {
  return createHash('sha256').update(canonicalJson(c)).digest('hex').slice(0, 8);
}

/**
 * Upstream GeneratePodHostNameAndDomain: pod.spec.hostname, else the pod name, cut to 63 chars without trailing
 * '-'/'.'; with a subdomain, the pod's domain in the cluster (`<subdomain>.<namespace>.svc.<cluster domain>`).
 */
function podHostnameAndDomain(ctx: RuntimeSpecContext, pod: Pod): { hostname: string; domain: string } {
  const h = pod.spec.hostname || pod.metadata.name || '';
  const hostname = h.length > 63 ? h.slice(0, 63).replace(/[-.]+$/, '') : h;
  return { hostname, domain: pod.spec.subdomain ? `${pod.spec.subdomain}.${pod.metadata.namespace}.svc.${ctx.clusterDomain}` : '' };
}

/** FQDN as the kernel's nodename holds it: 64 characters at most (upstream GetNodenameForKernel). */
const MAX_FQDN = 64;

/** The sandbox's host name: none for host network; the FQDN with setHostnameAsFQDN and a subdomain. */
function sandboxHostname(ctx: RuntimeSpecContext, pod: Pod): string {
  if (pod.spec.hostNetwork) return '';
  const { hostname, domain } = podHostnameAndDomain(ctx, pod);
  if (!domain || pod.spec.setHostnameAsFQDN !== true) return hostname;
  const fqdn = `${hostname}.${domain}`;
  if (fqdn.length > MAX_FQDN) {
    throw new Error(`failed to construct FQDN from pod hostname and cluster domain, FQDN ${fqdn} is too long (${MAX_FQDN} characters is the max, ${fqdn.length} characters requested)`);
  }
  return fqdn;
}

function parseResolvConf(file: string): DNSConfig {
  const out: Required<DNSConfig> = { servers: [], searches: [], options: [] };
  if (!file) return out;
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    const f = line.replace(/[#;].*$/, '').trim().split(/\s+/);
    if (f[0] === 'nameserver' && f[1]) out.servers.push(f[1]);
    else if (f[0] === 'search') out.searches = f.slice(1);
    else if (f[0] === 'options') out.options.push(...f.slice(1));
  }
  return out;
}

function dnsConfig(ctx: RuntimeSpecContext, pod: Pod): DNSConfig {
  const policy = pod.spec.dnsPolicy ?? 'ClusterFirst';
  const host = parseResolvConf(ctx.resolvConf);
  const custom = pod.spec.dnsConfig as { nameservers?: string[]; searches?: string[]; options?: { name: string; value?: string }[] } | undefined;
  let base: DNSConfig = host;
  if (policy === 'None') base = { servers: [], searches: [], options: [] };
  const clusterFirst = policy === 'ClusterFirst' || (policy === 'ClusterFirstWithHostNet' && pod.spec.hostNetwork);
  if (clusterFirst && !(policy === 'ClusterFirst' && pod.spec.hostNetwork) && ctx.clusterDNS.length) {
    const ns = pod.metadata.namespace;
    const d = ctx.clusterDomain;
    const searches = d ? [`${ns}.svc.${d}`, `svc.${d}`, d] : [];
    base = { servers: ctx.clusterDNS, searches: [...searches, ...(host.searches ?? [])], options: ['ndots:5'] };
  }
  if (custom) {
    base = {
      servers: [...(base.servers ?? []), ...(custom.nameservers ?? [])],
      searches: [...(base.searches ?? []), ...(custom.searches ?? [])],
      options: [...(base.options ?? []), ...(custom.options ?? []).map((o) => (o.value ? `${o.name}:${o.value}` : o.name))],
    };
  }
  return base;
}

/**
 * What a pod asks of its sandbox that this agent cannot give: the pod's sandbox fails with the reason (a
 * FailedCreatePodSandBox event; the pod waits in ContainerCreating), as upstream's does when a lookup or the runtime
 * refuses, rather than running without it.
 */
function unsupportedSandboxFields(pod: Pod): void {
  const runtimeClass = pod.spec.runtimeClassName;
  // No RuntimeClass objects are served (node.k8s.io), so every name is unknown, as upstream's lookup then finds it.
  if (runtimeClass) throw new Error(`runtimeclass.node.k8s.io ${JSON.stringify(runtimeClass)} not found`);
  if (pod.spec.hostUsers === false) {
    throw new Error('hostUsers: false (a user namespace of its own) is not supported by this node agent (feature gate UserNamespacesSupport is off here)');
  }
  const has = (o: unknown) => o !== undefined && o !== null && Object.keys(o as object).length > 0;
  if (has(pod.spec.resources)) throw new Error('pod-level resources (spec.resources) are not supported by this node agent (feature gate PodLevelResources is off here)');
  if (has(pod.spec.resourceClaims)) throw new Error('resource claims (spec.resourceClaims) are not supported by this node agent (feature gate DynamicResourceAllocation is off here)');
  // Upstream only a RuntimeClass sets it (RuntimeClass admission); sizing the pod's cgroup without one is not done.
  if (has(pod.spec.overhead)) throw new Error('spec.overhead comes from a RuntimeClass, and this cluster serves none');
}

export function sandboxConfig(ctx: RuntimeSpecContext, pod: Pod, attempt: number): PodSandboxConfig {
  unsupportedSandboxFields(pod);
  const m = pod.metadata;
  const ports: PortMapping[] = [];
  for (const c of pod.spec.containers) {
    for (const p of c.ports ?? []) {
      if (!p.hostPort) continue;
      ports.push({ protocol: (p.protocol ?? 'TCP') as PortMapping['protocol'], containerPort: p.containerPort, hostPort: p.hostPort, hostIp: p.hostIP ?? '' });
    }
  }
  const privileged = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].some((c) => c.securityContext?.privileged);
  return {
    metadata: { name: m.name!, namespace: m.namespace!, uid: m.uid!, attempt },
    hostname: sandboxHostname(ctx, pod),
    logDirectory: podLogDir(ctx, pod),
    dnsConfig: dnsConfig(ctx, pod),
    portMappings: ports,
    labels: { ...(m.labels ?? {}), [LABEL_POD_NAME]: m.name!, [LABEL_POD_NAMESPACE]: m.namespace!, [LABEL_POD_UID]: m.uid! },
    annotations: { ...(m.annotations ?? {}) },
    linux: {
      ...(ctx.cgroups ? { cgroupParent: ctx.cgroups.parentOf(pod) } : {}),
      securityContext: {
        namespaceOptions: podNamespaces(pod),
        privileged,
        ...sandboxSecurity(pod, ctx.security),
      },
      sysctls: sandboxSysctls(pod),
    },
  };
}

/** `$(VAR)` expansion as upstream's expansion package does it: `$$` escapes, unknown names stay. */
export function expandVars(s: string, env: Map<string, string>): string {
  return s.replace(/\$\$|\$\(([^)]*)\)/g, (all, name: string | undefined) => {
    if (all === '$$') return '$';
    return name !== undefined && env.has(name) ? env.get(name)! : all;
  });
}

function fieldRefValue(pod: Pod, fieldPath: string, podIP: string, nodeIP: string): string {
  const m = pod.metadata;
  switch (fieldPath) {
    case 'metadata.name': return m.name ?? '';
    case 'metadata.namespace': return m.namespace ?? '';
    case 'metadata.uid': return m.uid ?? '';
    case 'spec.nodeName': return pod.spec.nodeName ?? '';
    case 'spec.serviceAccountName': return pod.spec.serviceAccountName ?? '';
    case 'status.podIP': return podIP;
    // One address per family; this node and its pods have one (comma-joined when there are more, as upstream).
    case 'status.podIPs': return podIP;
    case 'status.hostIP': return nodeIP;
    case 'status.hostIPs': return nodeIP;
    default: {
      const lm = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
      if (lm) return (lm[1] === 'labels' ? m.labels : m.annotations)?.[lm[2]] ?? '';
      return '';
    }
  }
}

// The file work of a pod's start (directories, /etc/hosts, termination message files) is asynchronous: with many
// pods starting at once the runtime's mounts contend for the same filesystem locks, and a synchronous mkdir then
// held the agent's whole event loop for milliseconds each (~0.3 s of a 30-pod burst, bench/pod-start --profile).

const fsp = fs.promises;
/** Whether `p` exists (following links), without holding the event loop. */
export const exists = (p: string) => fsp.access(p).then(() => true, () => false);

/** Creates the volume directories (emptyDir) and the pod's files; returns the host path per volume name. */
export async function prepareVolumes(ctx: RuntimeSpecContext, pod: Pod): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const v of pod.spec.volumes ?? []) {
    if (v.hostPath) {
      const t = v.hostPath.type ?? '';
      if (t === 'DirectoryOrCreate') await fsp.mkdir(v.hostPath.path, { recursive: true, mode: 0o755 });
      if (t === 'FileOrCreate' && !(await exists(v.hostPath.path))) {
        await fsp.mkdir(path.dirname(v.hostPath.path), { recursive: true });
        await fsp.writeFile(v.hostPath.path, '', { mode: 0o644 });
      }
      if ((t === 'Directory' || t === 'File') && !(await exists(v.hostPath.path))) {
        throw new Error(`hostPath type check failed: ${v.hostPath.path} is not a ${t === 'Directory' ? 'directory' : 'file'}`);
      }
      out.set(v.name, v.hostPath.path);
    } else if (v.emptyDir) {
      const dir = path.join(podDir(ctx, pod.metadata.uid!), 'volumes', 'kubernetes.io~empty-dir', v.name);
      // Set up once, when made, as upstream's emptyDir (its ready file): later syncs leave the directory as the
      // pod's containers made it (a container's own chmod of the root stays).
      if ((await fsp.mkdir(dir, { recursive: true })) !== undefined) {
        // SetVolumeOwnership: with an fsGroup the volume belongs to that group and new files inherit it (setgid).
        const fsGroup = (pod.spec.securityContext as { fsGroup?: number } | undefined)?.fsGroup;
        if (fsGroup !== undefined) await fsp.chown(dir, -1, fsGroup);
        await fsp.chmod(dir, fsGroup !== undefined ? 0o2777 : 0o777);
      }
      out.set(v.name, dir);
    }
  }
  return out;
}

/** The node's hosts file, which a host-network pod's copy starts from. */
export const NODE_HOSTS_FILE = '/etc/hosts';

/** Upstream hostsEntriesFromHostAliases: one line per alias entry, after a blank line and a comment. */
function hostAliasLines(pod: Pod): string {
  const aliases = pod.spec.hostAliases ?? [];
  if (aliases.length === 0) return '';
  return '\n# Entries added by HostAliases.\n' + aliases.map((a) => `${a.ip}\t${(a.hostnames ?? []).join('\t')}\n`).join('');
}

/**
 * The pod's /etc/hosts (upstream ensureHostsFile): a host-network pod gets the node's file and its host aliases; any
 * other pod the managed file, with its IP, its name (and FQDN, with a subdomain) and its host aliases.
 */
async function etcHostsFile(ctx: RuntimeSpecContext, pod: Pod, podIP: string): Promise<string> {
  const file = path.join(podDir(ctx, pod.metadata.uid!), 'etc-hosts');
  let text: string;
  if (pod.spec.hostNetwork) {
    text = '# Kubernetes-managed hosts file (host network).\n' + (await fsp.readFile(NODE_HOSTS_FILE, 'utf8'));
  } else {
    const { hostname, domain } = podHostnameAndDomain(ctx, pod);
    const lines = ['# Kubernetes-managed hosts file.', '127.0.0.1\tlocalhost', '::1\tlocalhost ip6-localhost ip6-loopback',
      'fe00::0\tip6-localnet', 'fe00::0\tip6-mcastprefix', 'fe00::1\tip6-allnodes', 'fe00::2\tip6-allrouters'];
    if (podIP) lines.push(domain ? `${podIP}\t${hostname}.${domain}\t${hostname}` : `${podIP}\t${hostname}`);
    text = lines.join('\n') + '\n';
  }
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await fsp.writeFile(file, text + hostAliasLines(pod), { mode: 0o644 });
  return file;
}

export interface ContainerStart { config: ContainerConfig; logPath: string }

/** The CreateContainer config for one start of `c` (restartCount numbers the instance). */
export async function containerConfig(ctx: RuntimeSpecContext, pod: Pod, c: Container, imageRef: string, restartCount: number,
  podIP: string, volumes: Map<string, string>, apiEnv: ResolvedEnv = EMPTY_ENV, pidTarget?: string): Promise<ContainerConfig> {
  const env = new Map<string, string>();
  // envFrom first, then env entries (which win), as upstream's makeEnvironmentVariables.
  for (const [k, v] of apiEnv.fromSources) env.set(k, v);
  for (const e of c.env ?? []) {
    if (e.valueFrom?.secretKeyRef || e.valueFrom?.configMapKeyRef) {
      // Resolved by the volume step; absent means an optional reference to something missing: no variable.
      const v = apiEnv.refs.get(e.name);
      if (v !== undefined) env.set(e.name, v);
      continue;
    }
    const v = e.valueFrom?.fieldRef ? fieldRefValue(pod, e.valueFrom.fieldRef.fieldPath, podIP, ctx.nodeIP) : expandVars(e.value ?? '', env);
    env.set(e.name, v);
  }
  const mounts: Mount[] = [];
  for (const vm of c.volumeMounts ?? []) {
    const hostPath = volumes.get(vm.name);
    if (!hostPath) continue; // volume kinds without a host directory (validated earlier)
    const src = vm.subPath ? path.join(hostPath, vm.subPath) : hostPath;
    if (vm.subPath) await fsp.mkdir(src, { recursive: true });
    const propagation = vm.mountPropagation === 'Bidirectional' ? 'PROPAGATION_BIDIRECTIONAL'
      : vm.mountPropagation === 'HostToContainer' ? 'PROPAGATION_HOST_TO_CONTAINER' : 'PROPAGATION_PRIVATE';
    mounts.push({ containerPath: vm.mountPath, hostPath: src, readonly: !!vm.readOnly, propagation });
  }
  const mountedPaths = new Set(mounts.map((m) => m.containerPath));
  // Every pod with an address gets its managed copy, host-network ones too (upstream shouldMountHostsFile).
  if (podIP && !mountedPaths.has('/etc/hosts')) {
    mounts.push({ containerPath: '/etc/hosts', hostPath: await etcHostsFile(ctx, pod, podIP) });
  }
  const tmp = c.terminationMessagePath;
  if (tmp && !mountedPaths.has(tmp)) {
    const dir = path.join(podDir(ctx, pod.metadata.uid!), 'containers', c.name);
    await fsp.mkdir(dir, { recursive: true });
    const file = path.join(dir, randomBytes(4).toString('hex'));
    await fsp.writeFile(file, '', { mode: 0o666 });
    await fsp.chmod(file, 0o666);
    mounts.push({ containerPath: tmp, hostPath: file });
  }
  const res = linuxResources(c.resources?.limits, c.resources?.requests);
  if (ctx.cgroups) cfsQuota(res, c.resources?.limits?.cpu, ctx.cgroups);
  const memReq = c.resources?.requests?.memory ?? c.resources?.limits?.memory;
  const apparmor = appArmorOf(pod, c);
  const logPath = `${c.name}/${restartCount}.log`;
  await fsp.mkdir(path.join(podLogDir(ctx, pod), c.name), { recursive: true, mode: 0o755 });
  const annotations: Record<string, string> = {
    [ANN_CONTAINER_HASH]: containerHash(c),
    [ANN_RESTART_COUNT]: String(restartCount),
    [ANN_TERMINATION_MESSAGE_PATH]: c.terminationMessagePath ?? '',
    [ANN_TERMINATION_MESSAGE_POLICY]: c.terminationMessagePolicy ?? '',
  };
  if (pod.spec.terminationGracePeriodSeconds !== undefined) annotations[ANN_GRACE_PERIOD] = String(pod.spec.terminationGracePeriodSeconds);
  if (c.ports?.length) annotations[ANN_PORTS] = JSON.stringify(c.ports);
  const preStop = (c.lifecycle as { preStop?: unknown } | undefined)?.preStop;
  if (preStop) annotations[ANN_PRESTOP] = JSON.stringify(preStop);
  return {
    metadata: { name: c.name, attempt: restartCount },
    image: { image: imageRef, userSpecifiedImage: c.image },
    command: (c.command ?? []).map((s) => expandVars(s, env)),
    args: (c.args ?? []).map((s) => expandVars(s, env)),
    workingDir: c.workingDir ?? '',
    envs: [...env].map(([key, value]) => ({ key, value })),
    mounts,
    labels: { [LABEL_POD_NAME]: pod.metadata.name!, [LABEL_POD_NAMESPACE]: pod.metadata.namespace!, [LABEL_POD_UID]: pod.metadata.uid!, [LABEL_CONTAINER_NAME]: c.name },
    annotations,
    logPath,
    stdin: !!c.stdin,
    stdinOnce: !!c.stdinOnce,
    tty: !!c.tty,
    linux: {
      resources: { ...res, oomScoreAdj: oomScoreAdj(pod, memReq) },
      securityContext: {
        namespaceOptions: podNamespaces(pod, pidTarget),
        ...containerSecurity(pod, c, ctx.security),
        ...(apparmor ? { apparmor } : {}),
      },
    },
  };
}

/**
 * The namespaces of the pod's sandbox and containers (upstream namespacesForPod); an ephemeral container with a
 * target joins the target's process namespace, unless the pod already shares one (the host's or the pod's), as upstream.
 */
function podNamespaces(pod: Pod, pidTarget?: string): NamespaceOption {
  const pid = pod.spec.hostPID ? 'NODE' : pod.spec.shareProcessNamespace ? 'POD' : 'CONTAINER';
  return {
    network: pod.spec.hostNetwork ? 'NODE' : 'POD',
    ...(pid === 'CONTAINER' && pidTarget ? { pid: 'TARGET', targetId: pidTarget } : { pid }),
    ipc: pod.spec.hostIPC ? 'NODE' : 'POD',
  };
}

/** Upstream calculateLinuxResources: the quota follows --cpu-cfs-quota-period, and --cpu-cfs-quota=false drops it. */
function cfsQuota(res: ReturnType<typeof linuxResources>, cpuLimit: string | number | undefined, o: PodCgroupContext): void {
  delete res.cpuQuota;
  delete res.cpuPeriod;
  if (!o.cpuCFSQuota || cpuLimit === undefined) return;
  res.cpuPeriod = o.cpuPeriodUs;
  res.cpuQuota = milliCpuToQuota(Math.round(parseQuantity(cpuLimit) * 1000), o.cpuPeriodUs);
}

/** QoS class from requests and limits (upstream qos.GetPodQOS, CPU and memory only). */
export function qosClass(pod: Pod): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  let any = false;
  let guaranteed = true;
  for (const c of pod.spec.containers) {
    const l = c.resources?.limits ?? {};
    const r = c.resources?.requests ?? {};
    for (const k of ['cpu', 'memory']) {
      if (l[k] !== undefined || r[k] !== undefined) any = true;
      if (l[k] === undefined) guaranteed = false;
      else if (r[k] !== undefined && parseQuantity(r[k]) !== parseQuantity(l[k])) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

const GUARANTEED_OOM_SCORE_ADJ = -997;

/** Upstream IsNodeCriticalPod: a critical pod (static, or priority >= 2e9) of class system-node-critical. */
function nodeCritical(pod: Pod): boolean {
  if (pod.spec.priorityClassName !== 'system-node-critical') return false;
  const source = pod.metadata.annotations?.['kubernetes.io/config.source'];
  return (source !== undefined && source !== 'api') || Number(pod.spec.priority ?? 0) >= 2_000_000_000;
}

function oomScoreAdj(pod: Pod, memRequest: string | number | undefined): number {
  const q = qosClass(pod);
  if (q === 'Guaranteed' || nodeCritical(pod)) return GUARANTEED_OOM_SCORE_ADJ;
  if (q === 'BestEffort') return 1000;
  // Burstable: 1000 - 1000*request/capacity, clamped to [1000-997, 999] (node memory from /proc/meminfo).
  let capacity = 0;
  try {
    const mt = /MemTotal:\s+(\d+) kB/.exec(fs.readFileSync('/proc/meminfo', 'utf8'));
    capacity = mt ? Number(mt[1]) * 1024 : 0;
  } catch { /* unknown capacity */ }
  const req = memRequest !== undefined ? parseQuantity(memRequest) : 0;
  const adj = capacity > 0 ? 1000 - Math.floor((1000 * req) / capacity) : 999;
  return Math.min(999, Math.max(1000 + GUARANTEED_OOM_SCORE_ADJ, adj));
}
