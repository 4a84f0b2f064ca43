// One hollow node: the real agent's pod runtime, pod status, sync loop and node library (registration, status,
// lease, pod watch, status writes, events) over a FakeCri, with the facts of a made-up machine. Many of them run in
// one process (hollow-main.ts), each with its own API clients, as kubemark runs hollow kubelets.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Registry } from 'prom-client';
import { KubeClient, createEventRecorder, eventSinkFor, type ClientConfig } from '@cl/kube-client';
import { goArch, NodeAgent, PodSyncLoop, type NodeFacts } from '@cl/node';
import type { LogEntry, LogFn } from '../log';
import type { Pod, PodStatus } from '../pods/api-types';
import { CriPodLifecycle } from '../pods/cri-pod-lifecycle';
import { ImagePuller } from '../pods/image-puller';
import { PodRuntime } from '../pods/pod-runtime';
import { loopLog } from '../pods/pod-manager';
import { ProbeManager } from '../pods/probe-manager';
import type { RuntimeSpecContext } from '../pods/runtime-spec';
import { FakeCri } from './fake-cri';
import { noopVolumeStep } from '../volumes';
import { HOLLOW_NODE_CLIENT_CONNECTIONS, nodeClients } from '../node/node-clients';

export interface HollowNodeOptions {
  api: ClientConfig;
  name: string;
  /** This node's index: its pod subnet (10.<64 + i/256>.<i%256>.0/24) and its InternalIP (10.255.x.y). */
  index: number;
  /** Pod log and volume directories of this node go under it. */
  dir: string;
  version: string;
  capacity: { cpu: string; memory: string; pods: number };
  /** Client-side limits of the node's own client (--kube-api-qps/--kube-api-burst). */
  qps: number;
  burst: number;
  statusUpdateFrequencyMs: number;
  leaseDurationSeconds: number;
  log: LogFn;
}

const LABEL_DOMAIN = 'cl.io';

export class HollowNode {
  readonly cri: FakeCri;
  private readonly agent: NodeAgent;
  private readonly loop: PodSyncLoop<Pod, PodStatus>;
  private readonly probes: ProbeManager;
  private readonly clients: KubeClient[];
  private readonly recorder: ReturnType<typeof createEventRecorder>;

  constructor(private readonly o: HollowNodeOptions) {
    const subnet = `10.${64 + Math.floor(o.index / 256)}.${o.index % 256}`;
    const nodeIP = `10.255.${Math.floor(o.index / 256)}.${(o.index % 256) + 1}`;
    this.cri = new FakeCri(subnet);
    const cri = this.cri.asClient();
    const base: ClientConfig = { ...o.api, userAgent: `clet/${o.version} (linux/${process.arch}) hollow` };
    const { client, heartbeat, events: eventClient } = nodeClients(base, { qps: o.qps, burst: o.burst, eventQPS: o.qps, eventBurst: o.burst }, HOLLOW_NODE_CLIENT_CONNECTIONS);
    this.clients = [client, heartbeat, eventClient];
    const nodeLog = (msg: string, fields?: Record<string, unknown>, severity?: 'I' | 'W' | 'E') => o.log({ msg, kv: { node: o.name, ...fields }, ...(severity ? { severity } : {}) } as LogEntry);
    this.recorder = createEventRecorder(eventSinkFor(eventClient), { component: 'clet', host: o.name }, { log: nodeLog });
    const events = (pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string, fieldPath?: string) =>
      this.recorder.event({ kind: 'Pod', apiVersion: 'v1', namespace: pod.metadata.namespace, name: pod.metadata.name ?? '', uid: pod.metadata.uid, ...(fieldPath ? { fieldPath } : {}) }, type, reason, message);

    fs.mkdirSync(o.dir, { recursive: true });
    const ctx: RuntimeSpecContext = {
      podLogsDir: path.join(o.dir, 'pods'),
      containerLogsDir: path.join(o.dir, 'containers'),
      rootDir: o.dir,
      resolvConf: '',
      clusterDNS: [],
      clusterDomain: '',
      nodeIP,
      security: { seccompDefault: false, seccompProfileRoot: path.join(o.dir, 'seccomp') },
    };
    // No volume files and no token requests: a hollow node only simulates its pods (README, "Hollow nodes").
    const runtime = new PodRuntime(cri, new ImagePuller(cri, { serialize: false, qps: 0, burst: 0 }, o.log, events), ctx, o.log, events, noopVolumeStep);
    this.probes = new ProbeManager(cri, new Registry(), { unhealthy: () => undefined, changed: (uid) => this.loop.requestSync(uid) }, o.log);
    const lifecycle = new CriPodLifecycle({ cri, runtime, probes: this.probes, nodeIP, runtimeName: 'hollow' });
    this.agent = new NodeAgent({
      client,
      heartbeatClient: heartbeat,
      nodeName: o.name,
      hostname: o.name,
      labelDomain: LABEL_DOMAIN,
      nodeLabels: { 'cl.io/hollow': 'true' },
      taints: [],
      registerSchedulable: true,
      enableControllerAttachDetach: true,
      register: true,
      facts: () => Promise.resolve(this.facts(nodeIP)),
      statusUpdateFrequencyMs: o.statusUpdateFrequencyMs,
      statusReportFrequencyMs: 5 * 60_000,
      leaseDurationSeconds: o.leaseDurationSeconds,
      runtime: { setApiPods: (pods) => this.loop.setSourcePods('api', pods as Pod[]) },
      log: nodeLog,
      events: this.recorder,
    });
    this.loop = new PodSyncLoop<Pod, PodStatus>({
      lifecycle,
      sources: ['api'],
      maxPods: o.capacity.pods,
      reports: {
        status: (pod, status) => this.agent.reportStatus(pod as never, status as never),
        terminated: (pod) => this.agent.reportTerminated(pod as never),
        staticPods: () => undefined,
      },
      log: loopLog(o.log),
    });
  }

  private facts(nodeIP: string): NodeFacts {
    const { cpu, memory, pods } = this.o.capacity;
    const resources = { cpu, memory, pods: String(pods), 'ephemeral-storage': '100Gi' };
    return {
      capacity: resources,
      allocatable: resources,
      addresses: [{ type: 'InternalIP', address: nodeIP }, { type: 'Hostname', address: this.o.name }],
      nodeInfo: {
        machineID: this.o.name,
        systemUUID: this.o.name,
        bootID: this.o.name,
        kernelVersion: 'hollow',
        osImage: 'hollow',
        containerRuntimeVersion: 'hollow://0.1.0',
        kubeletVersion: this.o.version,
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: goArch(),
      },
      images: [],
      daemonPort: 10250,
      notReady: [],
      memoryPressure: false,
      diskPressure: false,
      pidPressure: false,
    };
  }

  async start(): Promise<void> {
    this.loop.start();
    await this.agent.start();
  }

  /** Pods this node runs now (synced by its loop). */
  pods(): object[] {
    return this.loop.pods();
  }

  get leaseRenewals(): number {
    return this.agent.leaseRenewals;
  }

  async stop(): Promise<void> {
    await this.agent.stop();
    await this.loop.stop();
    this.probes.stop();
    await this.recorder.stop();
    for (const c of this.clients) c.close();
  }
}
