// The real API server for the scheduler suite (the built apps/apiserver binary, started by its own e2e harness),
// and a client for it built from the kubeconfig the harness writes, as a user of this library would.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startApiserverProcess, type ApiserverProcess } from '../../../apps/apiserver/test/harness';
import { KubeClient, loadKubeconfig } from '@cl/kube-client';

export { startApiserverProcess, type ApiserverProcess };

export function clientFor(api: ApiserverProcess): KubeClient {
  return new KubeClient({ ...loadKubeconfig(api.kubeconfig), qps: -1 });
}

/** Polls until `probe` returns a value; a guard against a hang, not a speed check (10 minutes). */
export async function eventually<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string): Promise<T> {
  for (let i = 0; i < 6000; i++) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}
