// The real API server for these suites (the built apps/apiserver binary, started by its own e2e harness), and a
// client for it built from the kubeconfig the harness writes, as a user of this library would.
import { readFileSync } from 'node:fs';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { httpsGet, startApiserverProcess, type ApiserverProcess } from '../../../apps/apiserver/test/harness';
import { KubeClient, loadKubeconfig, type ClientConfig } from '../src';

export { startApiserverProcess, type ApiserverProcess };

export function clientFor(api: ApiserverProcess, extra: Partial<ClientConfig> = {}): KubeClient {
  return new KubeClient({ ...loadKubeconfig(api.kubeconfig), qps: -1, ...extra });
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

/** How many requests of `verb` on `resource` this server process has answered (its apiserver_request_total). */
export async function requestCount(api: ApiserverProcess, verb: string, resource: string): Promise<number> {
  const token = /token: (\S+)/.exec(readFileSync(api.kubeconfig, 'utf8'))?.[1];
  const r = await httpsGet(api, '/metrics', { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (r.status !== 200) throw new Error(`/metrics: ${r.status} ${r.body.slice(0, 200)}`);
  let n = 0;
  for (const line of r.body.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    if (line.includes(`verb="${verb}"`) && line.includes(`resource="${resource}"`)) n += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return n;
}
