// API-server mode: the node agent as a member of the cluster. One API client for the node's own traffic
// (--cl-api-qps/--cl-api-burst, --cl-api-content-type), one for events (eventRecordQPS/eventBurst, as
// upstream's separate event client), the node library for registration, status, lease, pods and mirrors,
// and the facts of this host for the node's status.
import { DEFAULT_OBJECT_TTL_MS, objectManagerFor, ttlFromNode, type ChangeDetectionStrategy, type PodObjectManager } from '../volumes';
import { hostname as osHostname } from 'node:os';
import type { CriClient } from '@cl/cri';
import { createEventRecorder, eventSinkFor, type ClientConfig } from '@cl/kube-client';
import { NodeAgent } from '@cl/node';
import { parseDuration } from '@cl/flags';
import type { CletConfiguration, CletFlags } from '../config/types';
import type { Logger } from '../log';
import type { PodReports, SecretGetter } from '../pods';
import type { Pod } from '../pods/api-types';
import type { ClientConfig as ApiServerConnection } from '@cl/kube-client';
import { nodeFactsSource } from './facts';
import { nodeClients } from './node-clients';

export interface JoinOptions {
  api: ApiServerConnection;
  config: CletConfiguration;
  flags: CletFlags;
  nodeName: string;
  nodeIP: string;
  version: string;
  cri: CriClient;
  log: Logger;
  setApiPods: (pods: Pod[]) => void;
  syncLoopHealthy: () => Error | null;
  /** The eviction manager's node conditions. */
  nodePressure: () => { memoryPressure: boolean; diskPressure: boolean; pidPressure: boolean };
}

export interface ClusterMembership {
  /** What the pod manager reports to (statuses, terminations, static pods, events). */
  reports: PodReports;
  /** Reads a secret of the pod's namespace for its imagePullSecrets, with the node's client. */
  secrets: SecretGetter;
  /** Secrets, config maps and service account tokens for pods' volumes and environment, by configMapAndSecretChangeDetectionStrategy (../volumes). */
  apiObjects: PodObjectManager;
  start(): void;
  stop(): Promise<void>;
}

/** The product's label domain for the well-known node labels (cl.io/hostname, cl.io/os, ...), as the spec names them. */
const LABEL_DOMAIN = 'cl.io';

export function joinCluster(o: JoinOptions): ClusterMembership {
  const { config, flags } = o;
  const base: ClientConfig = { ...o.api, userAgent: `clet/${o.version} (linux/${process.arch})`, contentType: config.contentType || undefined };
  const { client, heartbeat: heartbeatClient, events: eventClient } = nodeClients(base, {
    qps: config.kubeAPIQPS, burst: config.kubeAPIBurst, eventQPS: config.eventRecordQPS, eventBurst: config.eventBurst,
  });
  const log = (msg: string, fields?: Record<string, unknown>, severity?: 'I' | 'W' | 'E') => {
    if (severity === 'E') o.log.error(msg, fields);
    else if (severity === 'W') o.log.warn(msg, fields);
    else o.log.info(msg, fields);
  };
  const recorder = createEventRecorder(eventSinkFor(eventClient), { component: 'clet', host: o.nodeName }, { log });
  const hostname = (flags.hostnameOverride !== '' ? flags.hostnameOverride : osHostname()).trim().toLowerCase();
  const agent = new NodeAgent({
    client,
    heartbeatClient,
    nodeName: o.nodeName,
    hostname,
    labelDomain: LABEL_DOMAIN,
    nodeLabels: flags.nodeLabels,
    taints: config.registerWithTaints,
    registerSchedulable: flags.registerSchedulable,
    enableControllerAttachDetach: config.enableControllerAttachDetach,
    providerID: config.providerID || undefined,
    register: config.registerNode,
    facts: nodeFactsSource({
      cri: o.cri,
      rootDir: flags.rootDir,
      nodeIP: o.nodeIP,
      hostname,
      port: config.port,
      version: o.version,
      maxPods: config.maxPods,
      nodeStatusMaxImages: config.nodeStatusMaxImages,
      kubeReserved: config.kubeReserved ?? {},
      systemReserved: config.systemReserved ?? {},
      evictionHard: config.evictionHard ?? {},
      syncLoopHealthy: o.syncLoopHealthy,
      pressure: o.nodePressure,
    }),
    statusUpdateFrequencyMs: parseDuration(config.nodeStatusUpdateFrequency || '10s'),
    statusReportFrequencyMs: parseDuration(config.nodeStatusReportFrequency || '5m'),
    leaseDurationSeconds: config.nodeLeaseDurationSeconds || 40,
    runtime: { setApiPods: (pods) => o.setApiPods(pods as Pod[]) },
    log,
    events: recorder,
  });
  const objects = objectManagerFor(config.configMapAndSecretChangeDetectionStrategy as ChangeDetectionStrategy, client, {
    ttlMs: () => ttlFromNode(agent.registeredNode()) ?? DEFAULT_OBJECT_TTL_MS,
  });
  return {
    reports: {
      status: (pod, status) => agent.reportStatus(pod as never, status as never),
      terminated: (pod) => agent.reportTerminated(pod as never),
      staticPods: (pods) => agent.reportStaticPods(pods as never),
      events: (pod, type, reason, message, fieldPath) =>
        recorder.event({ kind: 'Pod', apiVersion: 'v1', namespace: pod.metadata.namespace, name: pod.metadata.name ?? '', uid: pod.metadata.uid, ...(fieldPath ? { fieldPath } : {}) }, type, reason, message),
      nodeEvent: (type, reason, message) => recorder.event({ kind: 'Node', name: o.nodeName, uid: o.nodeName }, type, reason, message),
    },
    // Pull secrets through the same manager as volumes (upstream's getPullSecretsForPod reads the secret manager).
    secrets: async (namespace, name) => {
      const s = await objects.secret(namespace, name);
      if (!s) throw new Error(`secrets ${JSON.stringify(name)} not found`);
      return s;
    },
    apiObjects: objects,
    start() {
      agent.start().catch((e: Error) => log('Node agent failed to start', { err: e.message }, 'E'));
    },
    async stop() {
      await agent.stop();
      objects.stop();
      await recorder.stop();
      client.close();
      heartbeatClient.close();
      eventClient.close();
    },
  };
}
