// Control loops run inside the API server process on the loopback client, as kube-apiserver's post-start hooks
// run controllers on its LoopbackClientConfig: started once every post-start hook has finished, and stopped at
// shutdown before the server drains, so their watches have ended when it waits for requests in flight.
import { KubeClient, SharedInformers, type ClientConfig } from '@cl/kube-client';
import { formatValue } from '@cl/logging';
import { Scheduler } from '@cl/scheduler';
import type { Logger } from './logger';

/** The libraries' logging shape (kube-client, scheduler): a message and its key/value pairs. */
export type StructuredLog = (msg: string, fields?: Record<string, unknown>) => void;

export interface InProcessContext {
  client: KubeClient;
  /** One informer per collection, shared by every controller in the process. */
  informers: SharedInformers;
  log: Logger;
  /** `log` in the libraries' shape. */
  structured: StructuredLog;
  /** The serving certificate (PEM, with its chain): what clients of this server verify it by. */
  servingCert: Buffer;
}

export interface InProcessController {
  /** Resolves once the controller works (its informers have listed). */
  start(): Promise<void>;
  /** Resolves once it has stopped, with its writes under way finished. */
  stop(): Promise<void>;
}

export type InProcessControllerFactory = (ctx: InProcessContext) => InProcessController;

export interface InProcessControllers {
  stop(): Promise<void>;
}

// Upstream logs these routine lines at -v=2 (schedule_one.go) and the reflector's relists at -v=4; the rest are
// errors a component of this process ran into.
const VERBOSITY: Record<string, number> = {
  'Successfully bound pod to node': 2,
  'Unable to schedule pod': 2,
  'Watch expired, relisting': 4,
  'Listing again at the latest resourceVersion': 4,
  'Watch failed, retrying from the last resourceVersion': 4,
  // @cl/controllers' routine lines, at kube-controller-manager's levels (replica_set.go, gc_controller.go,
  // node_lifecycle_controller.go, taint_eviction.go); their failures stay errors.
  'Error syncing deployment': 2,
  'Found a hash collision for deployment - bumping collisionCount to resolve it': 2,
  'Too few replicas': 2,
  'Too many replicas': 2,
  'Deleting pod': 2,
  'Garbage collecting pods': 4,
  'PodGC is force deleting Pod': 2,
  'Forced deletion of orphaned Pod succeeded': 0,
  'Forced deletion of unscheduled terminating Pod succeeded': 0,
  'Controller detected that all Nodes are not-Ready. Entering master disruption mode': 0,
  'Controller detected that some Nodes are Ready. Exiting master disruption mode': 0,
  'Controller detected that zone is now in new state': 0,
};

/** klog's structured form (`"msg" key="value"`) on the API server's logger. */
export function structuredLog(log: Logger): StructuredLog {
  return (msg, fields = {}) => {
    let line = formatValue(msg);
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) line += ` ${k}=${formatValue(v)}`;
    const level = VERBOSITY[msg];
    if (level === undefined) log.error(line);
    else log.v(level, line);
  };
}

/**
 * Builds the loopback client (the config is resolved first: it checks the serving certificate), the shared
 * informers and the controllers, and starts them; `stop()` may come at any point of that.
 */
export function startInProcessControllers(factories: InProcessControllerFactory[], loopback: () => Promise<ClientConfig>, log: Logger, servingCert: Buffer): InProcessControllers {
  let stopping = false;
  let running: { client: KubeClient; informers: SharedInformers; controllers: InProcessController[] } | undefined;
  const starting = (async () => {
    const config = await loopback();
    if (stopping) return;
    const client = new KubeClient(config);
    const informers = new SharedInformers(client, { log: structuredLog(log) });
    const ctx: InProcessContext = { client, informers, log, structured: structuredLog(log), servingCert };
    running = { client, informers, controllers: factories.map((f) => f(ctx)) };
    await informers.start();
    for (const c of running.controllers) if (!stopping) await c.start();
  })().catch((e: unknown) => log.error(`In-process controllers failed to start: ${(e as Error)?.message ?? e}`));
  return {
    async stop() {
      stopping = true;
      // Stopping ends a start still waiting for its informers, so `starting` settles after this.
      if (running) {
        for (const c of [...running.controllers].reverse()) await c.stop();
        running.informers.stop();
        running.client.close();
      }
      await starting;
    },
  };
}

/** The scheduler (@cl/scheduler) with the process's informers; --enable-scheduler. */
export const inProcessScheduler: InProcessControllerFactory = ({ client, informers, log, structured }) => {
  const scheduler = new Scheduler({ client, informers, log: structured });
  let stopped = false;
  return {
    async start() {
      await scheduler.start();
      if (!stopped) log.info(`Scheduler ${JSON.stringify(scheduler.schedulerName)} started: pods with spec.schedulerName ${JSON.stringify(scheduler.schedulerName)} and no spec.nodeName are bound to nodes`);
    },
    stop() {
      stopped = true;
      return scheduler.stop();
    },
  };
};
