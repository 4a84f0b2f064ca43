// One informer per collection in a process: the scheduler and, later, controllers in the same process read the
// same nodes and pods from one list+watch each, as client-go's SharedInformerFactory. The informers here watch
// whole collections (no selectors), so every user can share them and filter in its handlers.
import { Informer, type InformerLog, type InformerObject } from './informer';
import type { KubeClient } from './kube-client';

export class SharedInformers {
  private readonly informers = new Map<string, Informer<InformerObject>>();
  private started = false;

  constructor(
    private readonly client: KubeClient,
    private readonly opts: { log?: InformerLog } = {},
  ) {}

  /**
   * The informer of a collection path ('/api/v1/pods'), created on first use and started with the others (or at
   * once, if start() was called before). A handler added after the informer has synced sees only later changes,
   * so read list() once after adding it.
   */
  informer<T extends InformerObject>(path: string): Informer<T> {
    let inf = this.informers.get(path);
    if (!inf) {
      inf = new Informer<InformerObject>(this.client, { path, log: this.opts.log });
      this.informers.set(path, inf);
      if (this.started) void inf.start();
    }
    return inf as unknown as Informer<T>;
  }

  /** Starts every informer; resolves when each has delivered its first list. */
  async start(): Promise<void> {
    this.started = true;
    await Promise.all([...this.informers.values()].map((i) => i.start()));
  }

  stop(): void {
    for (const i of this.informers.values()) i.stop();
  }
}
