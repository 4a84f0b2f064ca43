// A kubeconfig file as client-go's clientcmd reads it for one client: current-context names a cluster and a user;
// *-data fields are base64, file fields resolve against the kubeconfig's directory; a token may come from a file.
// Error messages are the node agent's (`--clconfig`), which loads its file here.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';
import type { ClientConfig } from './client-config';
import { parseSimpleYaml } from './kubeconfig-yaml';

type Obj = Record<string, unknown>;

const asObj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The `field` of the entry called `name` in a named list; with no name, the first entry (a file with one context and no current-context). */
function findNamed(list: unknown, name: string | undefined, field: string): Obj | undefined {
  if (!Array.isArray(list)) return undefined;
  const entry = list.find((e) => asObj(e).name === name) ?? (name ? undefined : list[0]);
  return entry ? asObj(asObj(entry)[field]) : undefined;
}

/** Reads a kubeconfig file into a ClientConfig (qps, burst and content type are left to the caller). */
export function loadKubeconfig(path: string): ClientConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`invalid clconfig: stat ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
  }
  let doc: Obj;
  try {
    // The plain shapes tools write skip the yaml library's costly first parse; the rest is the library's.
    doc = asObj((parseSimpleYaml(text) ?? { value: parse(text) }).value);
  } catch (e) {
    throw new Error(`invalid clconfig: ${path}: ${(e as Error).message.split('\n')[0]}`);
  }
  const context = findNamed(doc.contexts, str(doc['current-context']), 'context') ?? {};
  const cluster = findNamed(doc.clusters, str(context.cluster), 'cluster');
  const user = findNamed(doc.users, str(context.user), 'user') ?? {};
  const server = str(cluster?.server);
  if (!cluster || !server) throw new Error(`invalid configuration: no server found for cluster ${JSON.stringify(context.cluster ?? '')}`);
  const base = dirname(path);
  const file = (p: string | undefined) => (p === undefined ? undefined : readFileSync(isAbsolute(p) ? p : join(base, p)));
  const data = (v: unknown) => (str(v) ? Buffer.from(v as string, 'base64') : undefined);
  const tokenFile = str(user.tokenFile);
  return {
    server: server.replace(/\/+$/, ''),
    ca: data(cluster['certificate-authority-data']) ?? file(str(cluster['certificate-authority'])),
    insecureSkipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
    cert: data(user['client-certificate-data']) ?? file(str(user['client-certificate'])),
    key: data(user['client-key-data']) ?? file(str(user['client-key'])),
    token: str(user.token) ?? (tokenFile ? file(tokenFile)!.toString('utf8').trim() : undefined),
  };
}
