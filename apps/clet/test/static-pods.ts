// A pod manager on its own private containerd, fed static pods from a manifest directory: what the probe,
// hook and security suites share. The loops a suite does not test (GC, housekeeping) are slowed to never.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CletConfiguration } from '../src/config/types';
import { createPodManager, type Pod, type PodManager, type PodManagerOptions } from '../src/pods';
// tools/ holds test fixtures, not an Nx project; specs are never built, so the relative import is safe.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ensureTestImages, startContainerd, type PrivateContainerd } from '../../../tools/containerd/harness';

export interface StaticPodEnv {
  tmp: string;
  manifests: string;
  images: { busybox: string; pause: string };
  mgr: PodManager;
  /** The pod as the agent reports it (static pods are named `<name>-node1`). */
  podNamed(name: string): Pod | undefined;
  /** Writes (or replaces) a static pod manifest atomically. */
  writePod(name: string, spec: object, labels?: Record<string, string>): void;
  stop(): Promise<void>;
}

export async function startStaticPodEnv(prefix: string, config: Partial<CletConfiguration> = {}, options: Partial<PodManagerOptions> = {}): Promise<StaticPodEnv> {
  const ctd: PrivateContainerd = await startContainerd();
  const images = ensureTestImages(ctd.socket);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const manifests = path.join(tmp, 'manifests');
  fs.mkdirSync(manifests);
  const mgr = createPodManager({
    config: {
      staticPodPath: manifests, staticPodURL: '', staticPodURLHeader: {}, fileCheckFrequency: '1s', httpCheckFrequency: '1s',
      syncFrequency: '1m0s', containerRuntimeEndpoint: ctd.endpoint, imageServiceEndpoint: '', runtimeRequestTimeout: '2m0s',
      serializeImagePulls: true, registryPullQPS: 5, registryBurst: 10, maxPods: 110, podLogsDir: path.join(tmp, 'pod-logs'),
      runOnce: false, resolvConf: '', clusterDNS: [], clusterDomain: '',
      ...config,
    } as unknown as CletConfiguration,
    nodeName: 'node1', log: () => undefined, rootDir: path.join(tmp, 'root'), nodeIP: '127.0.0.1',
    podInfraContainerImage: images.pause, containerLogsDir: path.join(tmp, 'containers'),
    containerGCPeriodMs: 3_600_000, imageGCPeriodMs: 3_600_000, housekeepingPeriodMs: 3_600_000,
    ...options,
  });
  await mgr.start();
  return {
    tmp,
    manifests,
    images,
    mgr,
    podNamed: (name) => (mgr.pods() as Pod[]).find((p) => p.metadata.name === `${name}-node1`),
    writePod(name, spec, labels) {
      const file = path.join(manifests, `${name}.json`);
      fs.writeFileSync(`${file}.tmp`, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, ...(labels ? { labels } : {}) }, spec }));
      fs.renameSync(`${file}.tmp`, file);
    },
    async stop() {
      await mgr.stop();
      await ctd.stop();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}
