// A pod's and its containers' securityContext as the runtime gets it (pkg/kubelet/kuberuntime security_context*
// and pkg/securitycontext): the container's fields over the pod's, capabilities, no_new_privs from
// allowPrivilegeEscalation, seccomp (container, pod, then RuntimeDefault with --seccomp-default), /proc masking
// by procMount, fsGroup as a supplemental group, SELinux options passed through; and the checks upstream makes
// before running anything: sysctls against the safe set and --allowed-unsafe-sysctls, AppArmor on a host
// without it, runAsNonRoot against the image's user.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LinuxContainerSecurityContext, LinuxSandboxSecurityContext, SecurityProfile } from '@cl/cri';
import type { Container, Pod } from './api-types';

interface SeccompProfile {
  type?: string;
  localhostProfile?: string;
}
interface SELinuxOptions {
  user?: string;
  role?: string;
  type?: string;
  level?: string;
}
/** The fields of PodSecurityContext and SecurityContext this module reads. */
interface SecurityFields {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  seccompProfile?: SeccompProfile;
  appArmorProfile?: SeccompProfile;
  seLinuxOptions?: SELinuxOptions;
  privileged?: boolean;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  procMount?: string;
  supplementalGroups?: number[];
  fsGroup?: number;
  sysctls?: Array<{ name: string; value: string }>;
}

export interface SecurityOptions {
  /** --seccomp-default: RuntimeDefault for workloads that name no profile. */
  seccompDefault: boolean;
  /** Where Localhost seccomp profiles live (<root-dir>/seccomp). */
  seccompProfileRoot: string;
}

const podSc = (pod: Pod) => (pod.spec.securityContext ?? {}) as SecurityFields;
const containerSc = (c: Container) => (c.securityContext ?? {}) as SecurityFields;

/** The container's setting, else the pod's (DetermineEffectiveSecurityContext). */
function effective<K extends keyof SecurityFields>(pod: Pod, c: Container, key: K): SecurityFields[K] {
  return containerSc(c)[key] ?? podSc(pod)[key];
}

/** /proc paths the runtime masks and makes read-only unless procMount is Unmasked (pkg/securitycontext). */
export const DEFAULT_MASKED_PATHS = [
  '/proc/asound', '/proc/acpi', '/proc/kcore', '/proc/keys', '/proc/latency_stats', '/proc/timer_list',
  '/proc/timer_stats', '/proc/sched_debug', '/proc/scsi', '/sys/firmware', '/sys/devices/virtual/powercap',
];
export const DEFAULT_READONLY_PATHS = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];

function seccompOf(profile: SeccompProfile | undefined, opts: SecurityOptions): SecurityProfile {
  switch (profile?.type) {
    case 'RuntimeDefault':
      return { profileType: 'RuntimeDefault' };
    case 'Localhost':
      return { profileType: 'Localhost', localhostRef: path.join(opts.seccompProfileRoot, profile.localhostProfile ?? '') };
    case 'Unconfined':
      return { profileType: 'Unconfined' };
    default:
      return opts.seccompDefault ? { profileType: 'RuntimeDefault' } : { profileType: 'Unconfined' };
  }
}

/** The pod's supplemental groups, with fsGroup among them as upstream adds it. */
function supplementalGroups(pod: Pod): number[] {
  const sc = podSc(pod);
  const groups = [...(sc.supplementalGroups ?? [])];
  if (sc.fsGroup !== undefined && !groups.includes(sc.fsGroup)) groups.push(sc.fsGroup);
  return groups;
}

export function sandboxSecurity(pod: Pod, opts: SecurityOptions): Omit<LinuxSandboxSecurityContext, 'namespaceOptions' | 'privileged'> {
  const sc = podSc(pod);
  return {
    ...(sc.runAsUser !== undefined ? { runAsUser: { value: sc.runAsUser } } : {}),
    ...(sc.runAsGroup !== undefined ? { runAsGroup: { value: sc.runAsGroup } } : {}),
    ...(sc.seLinuxOptions ? { selinuxOptions: sc.seLinuxOptions } : {}),
    supplementalGroups: supplementalGroups(pod),
    seccomp: seccompOf(sc.seccompProfile, opts),
  };
}

/** The pod's sysctls for the sandbox (admission has checked them). */
export function sandboxSysctls(pod: Pod): Record<string, string> {
  return Object.fromEntries((podSc(pod).sysctls ?? []).map((s) => [s.name.replace(/\//g, '.'), s.value]));
}

export function containerSecurity(pod: Pod, c: Container, opts: SecurityOptions): Omit<LinuxContainerSecurityContext, 'namespaceOptions'> {
  const sc = containerSc(c);
  const runAsUser = effective(pod, c, 'runAsUser');
  const runAsGroup = effective(pod, c, 'runAsGroup');
  const seLinux = effective(pod, c, 'seLinuxOptions');
  const unmasked = sc.procMount === 'Unmasked';
  return {
    privileged: !!sc.privileged,
    readonlyRootfs: !!sc.readOnlyRootFilesystem,
    ...(runAsUser !== undefined ? { runAsUser: { value: runAsUser } } : {}),
    ...(runAsGroup !== undefined ? { runAsGroup: { value: runAsGroup } } : {}),
    ...(seLinux ? { selinuxOptions: seLinux } : {}),
    supplementalGroups: supplementalGroups(pod),
    capabilities: { addCapabilities: sc.capabilities?.add ?? [], dropCapabilities: sc.capabilities?.drop ?? [] },
    // AddNoNewPrivileges: only an explicit allowPrivilegeEscalation: false sets it.
    noNewPrivs: sc.allowPrivilegeEscalation === false,
    seccomp: seccompOf(effective(pod, c, 'seccompProfile'), opts),
    maskedPaths: unmasked ? [] : DEFAULT_MASKED_PATHS,
    readonlyPaths: unmasked ? [] : DEFAULT_READONLY_PATHS,
  };
}

export interface AdmissionRejection {
  reason: string;
  message: string;
}

/** kernel sysctls that are namespaced, and by which namespace (pkg/kubelet/sysctl/namespace.go). */
function sysctlNamespace(name: string): 'ipc' | 'net' | null {
  if (name === 'kernel.sem' || name.startsWith('kernel.shm') || name.startsWith('kernel.msg') || name.startsWith('fs.mqueue.')) return 'ipc';
  if (name.startsWith('net.')) return 'net';
  return null;
}

/** Upstream's safe set for 1.33 (on kernels new enough for each, which every kernel here is). */
export const SAFE_SYSCTLS = [
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes', 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem',
];

/**
 * Upstream's OS admission (kubelet lifecycle/predicate.go): a pod labelled for another OS (`<domain>/os`, the domain
 * of the node's own well-known labels) or whose `spec.os` names another is refused before it runs.
 */
export function osAdmission(nodeOS = 'linux', labelDomain = 'cl.io'): (pod: Pod) => AdmissionRejection | null {
  const label = `${labelDomain}/os`;
  return (pod) => {
    const wanted = pod.metadata.labels?.[label];
    if (wanted !== undefined && wanted !== nodeOS) {
      return { reason: 'PodOSSelectorNodeLabelDoesNotMatch', message: `Failed to admit pod as the \`${label}\` label doesn't match node label` };
    }
    const os = pod.spec.os?.name;
    if (os !== undefined && os !== nodeOS) return { reason: 'PodOSNotSupported', message: "Failed to admit pod as the OS field doesn't match node OS" };
    return null;
  };
}

/**
 * The sysctl admission handler for a pod: every sysctl must be safe or match --allowed-unsafe-sysctls, and a
 * net (ipc) one is refused with the host's network (IPC). Throws at construction for an allowlist entry that is
 * not namespaced, as the agent refuses to start with one.
 */
export function sysctlAdmission(allowedUnsafe: string[]): (pod: Pod) => AdmissionRejection | null {
  const exact = new Map<string, 'ipc' | 'net'>();
  const prefixes = new Map<string, 'ipc' | 'net'>();
  for (const s of [...SAFE_SYSCTLS, ...allowedUnsafe]) {
    const name = s.replace(/\//g, '.');
    if (name.endsWith('*')) {
      const prefix = name.slice(0, -1);
      const ns = sysctlNamespace(prefix);
      if (!ns) throw new Error(`the sysctl pattern ${JSON.stringify(s)} is not known to be namespaced`);
      prefixes.set(prefix, ns);
    } else {
      const ns = sysctlNamespace(name);
      if (!ns) throw new Error(`the sysctl ${JSON.stringify(s)} is not known to be namespaced`);
      exact.set(name, ns);
    }
  }
  return (pod) => {
    for (const s of podSc(pod).sysctls ?? []) {
      const name = s.name.replace(/\//g, '.');
      let ns = exact.get(name);
      if (!ns) for (const [p, n] of prefixes) if (name.startsWith(p)) ns = n;
      let err: string | null = null;
      if (!ns) err = `${JSON.stringify(name)} not allowlisted`;
      else if (ns === 'ipc' && pod.spec.hostIPC) err = `${JSON.stringify(name)} not allowed with host ipc enabled`;
      else if (ns === 'net' && pod.spec.hostNetwork) err = `${JSON.stringify(name)} not allowed with host net enabled`;
      if (err) return { reason: 'SysctlForbidden', message: `forbidden sysctl: ${err}` };
    }
    return null;
  };
}

/** Whether the host enforces AppArmor (the kernel module is loaded and enabled). */
export function hostHasAppArmor(file = '/sys/module/apparmor/parameters/enabled'): boolean {
  try {
    return fs.readFileSync(file, 'utf8').trim().startsWith('Y');
  } catch {
    return false;
  }
}

/** Upstream's AppArmor admission: a pod that asks for a profile cannot run on a host without AppArmor. */
export function appArmorAdmission(enabled: boolean): (pod: Pod) => AdmissionRejection | null {
  return (pod) => {
    const wants = (p?: SeccompProfile) => p?.type !== undefined && p.type !== 'Unconfined';
    const containers = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
    const required = wants(podSc(pod).appArmorProfile) || containers.some((c) => wants(containerSc(c).appArmorProfile));
    if (!required || enabled) return null;
    return { reason: 'AppArmor', message: 'Cannot enforce AppArmor: AppArmor is not enabled on the host' };
  };
}

/** The AppArmor profile for the runtime (only reached on hosts that have AppArmor). */
export function appArmorOf(pod: Pod, c: Container): SecurityProfile | undefined {
  const p = effective(pod, c, 'appArmorProfile');
  if (!p?.type) return undefined;
  if (p.type === 'Localhost') return { profileType: 'Localhost', localhostRef: p.localhostProfile ?? '' };
  return { profileType: p.type === 'Unconfined' ? 'Unconfined' : 'RuntimeDefault' };
}

const podName = (pod: Pod) => `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;

/**
 * runAsNonRoot against the user the container will run as: its runAsUser, else the image's user (a numeric uid,
 * a name that cannot be checked, or neither, which means root). Returns the CreateContainerConfigError message.
 */
export function runAsNonRootViolation(pod: Pod, c: Container, image: { uid: number | null; username: string }): string | null {
  if (effective(pod, c, 'runAsNonRoot') !== true) return null;
  const runAsUser = effective(pod, c, 'runAsUser');
  if (runAsUser !== undefined) {
    return runAsUser === 0 ? `container's runAsUser breaks non-root policy (pod: ${JSON.stringify(podName(pod))}, container: ${c.name})` : null;
  }
  if (image.uid === null && image.username !== '') {
    return `container has runAsNonRoot and image has non-numeric user (${image.username}), cannot verify user is non-root (pod: ${JSON.stringify(podName(pod))}, container: ${c.name})`;
  }
  if ((image.uid ?? 0) === 0) return `container has runAsNonRoot and image will run as root (pod: ${JSON.stringify(podName(pod))}, container: ${c.name})`;
  return null;
}
