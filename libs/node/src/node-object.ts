// The Node this agent registers, and what registration reconciles when the Node already exists, as upstream's
// kubelet_node_status.go: default labels follow the host, --node-labels and --register-with-taints only shape
// a Node being created.
import type { Node, Taint } from './types';

export const ANNOTATION_CONTROLLER_ATTACH_DETACH = 'volumes.kubernetes.io/controller-managed-attach-detach';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

/**
 * The well-known node labels under a label domain: `kubernetes.io` upstream; the node agent uses its product
 * domain `cl.io` (the spec's --node-labels rules name cl.io/hostname, cl.io/os, ...).
 */
export function wellKnownLabels(domain: string) {
  return {
    hostname: `${domain}/hostname`,
    os: `${domain}/os`,
    arch: `${domain}/arch`,
    betaOs: `beta.${domain}/os`,
    betaArch: `beta.${domain}/arch`,
    /** The labels registration keeps in step with the host on every start (upstream's updateDefaultLabels list). */
    defaults: [
      `${domain}/hostname`,
      `topology.${domain}/zone`,
      `topology.${domain}/region`,
      `failure-domain.beta.${domain}/zone`,
      `failure-domain.beta.${domain}/region`,
      `node.${domain}/instance-type`,
      `beta.${domain}/instance-type`,
      `${domain}/os`,
      `${domain}/arch`,
      `beta.${domain}/os`,
      `beta.${domain}/arch`,
    ],
  };
}

export interface RegistrationOptions {
  nodeName: string;
  /** The host's name as the agent sees it (--hostname-override, else the host name), for <domain>/hostname. */
  hostname: string;
  /** Domain of the well-known labels (default kubernetes.io). */
  labelDomain?: string;
  /** --node-labels: override the defaults. */
  nodeLabels?: Record<string, string>;
  /** --register-with-taints. */
  taints?: Taint[];
  /** --register-schedulable=false registers the node cordoned. */
  registerSchedulable?: boolean;
  enableControllerAttachDetach?: boolean;
  providerID?: string;
}

/** Go's GOARCH names for Node's architecture labels and nodeInfo. */
export function goArch(arch: string = process.arch): string {
  return ({ x64: 'amd64', ia32: '386', arm: 'arm', arm64: 'arm64', ppc64: 'ppc64le', s390x: 's390x' } as Record<string, string>)[arch] ?? arch;
}

/** The Node object POSTed at registration (status is filled in by the caller). */
export function registrationNode(o: RegistrationOptions): Node {
  const os = 'linux';
  const arch = goArch();
  const l = wellKnownLabels(o.labelDomain ?? 'kubernetes.io');
  const labels: Record<string, string> = { [l.hostname]: o.hostname, [l.os]: os, [l.arch]: arch, [l.betaOs]: os, [l.betaArch]: arch, ...o.nodeLabels };
  const taints = [...(o.taints ?? [])];
  const schedulable = o.registerSchedulable ?? true;
  if (!schedulable && !taints.some((t) => t.key === TAINT_UNSCHEDULABLE && t.effect === 'NoSchedule')) {
    taints.push({ key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' });
  }
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: o.nodeName,
      labels,
      ...(o.enableControllerAttachDetach ?? true ? { annotations: { [ANNOTATION_CONTROLLER_ATTACH_DETACH]: 'true' } } : {}),
    },
    spec: {
      ...(taints.length ? { taints } : {}),
      ...(schedulable ? {} : { unschedulable: true }),
      ...(o.providerID ? { providerID: o.providerID } : {}),
    },
  };
}

/**
 * What changes on an existing Node when the agent registers again: the default labels follow the new Node
 * (set, changed, or removed when the new Node has none) and the attach-detach annotation follows the setting.
 * Returns the labels and annotations to write, or null when nothing differs.
 */
export function reconcileExisting(existing: Node, wanted: Node, labelDomain = 'kubernetes.io'): { labels: Record<string, string | null>; annotations: Record<string, string | null> } | null {
  const labels: Record<string, string | null> = {};
  const have = existing.metadata.labels ?? {};
  const want = wanted.metadata.labels ?? {};
  for (const key of wellKnownLabels(labelDomain).defaults) {
    if (want[key] !== undefined && have[key] !== want[key]) labels[key] = want[key];
    else if (want[key] === undefined && have[key] !== undefined) labels[key] = null;
  }
  const annotations: Record<string, string | null> = {};
  const wantAttach = wanted.metadata.annotations?.[ANNOTATION_CONTROLLER_ATTACH_DETACH];
  const haveAttach = existing.metadata.annotations?.[ANNOTATION_CONTROLLER_ATTACH_DETACH];
  if (wantAttach !== undefined && haveAttach !== wantAttach) annotations[ANNOTATION_CONTROLLER_ATTACH_DETACH] = wantAttach;
  else if (wantAttach === undefined && haveAttach !== undefined) annotations[ANNOTATION_CONTROLLER_ATTACH_DETACH] = null;
  return Object.keys(labels).length || Object.keys(annotations).length ? { labels, annotations } : null;
}
