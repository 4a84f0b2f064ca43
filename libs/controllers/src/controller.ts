// The shape every controller of this library has, so a process (the API server's in-process controllers, or a
// controller manager of its own) starts and stops them alike.
import type { KubeClient, SharedInformers } from '@cl/kube-client';

/** klog's structured form: a message and its key/value pairs. */
export type ControllerLog = (msg: string, fields?: Record<string, unknown>) => void;

export interface ControllerContext {
  client: KubeClient;
  /** One informer per collection, shared by every controller in the process. */
  informers: SharedInformers;
  log?: ControllerLog;
}

export interface Controller {
  /** Resolves once the controller works (its informers have listed). */
  start(): Promise<void>;
  /** Resolves once it has stopped, with its writes under way finished. */
  stop(): Promise<void>;
}
