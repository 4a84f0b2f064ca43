// The --clconfig file (a kubeconfig): the API server's address and this agent's credentials, which the
// TokenReview and SubjectAccessReview webhooks use.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';

export interface ApiServerConnection {
  server: string;
  ca?: Buffer;
  insecureSkipTLSVerify: boolean;
  cert?: Buffer;
  key?: Buffer;
  token?: string;
}

interface Named<T> {
  name: string;
  [k: string]: unknown;
  value?: T;
}

type Obj = Record<string, unknown>;

const asObj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function findNamed(list: unknown, name: string | undefined, field: string): Obj | undefined {
  if (!Array.isArray(list)) return undefined;
  const entry = (list as Array<Named<unknown>>).find((e) => asObj(e).name === name) ?? (name ? undefined : list[0]);
  return entry ? asObj(asObj(entry)[field]) : undefined;
}

/** Reads a kubeconfig; relative file references resolve against its directory, as client-go does. */
export function loadClconfig(path: string): ApiServerConnection {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`invalid clconfig: stat ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
  }
  let doc: Obj;
  try {
    doc = asObj(parse(text));
  } catch (e) {
    throw new Error(`invalid clconfig: ${path}: ${(e as Error).message.split('\n')[0]}`);
  }
  const ctxName = str(doc['current-context']);
  const context = findNamed(doc.contexts, ctxName, 'context') ?? {};
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
    token: str(user.token) ?? (tokenFile ? readFileSync(isAbsolute(tokenFile) ? tokenFile : join(base, tokenFile), 'utf8').trim() : undefined),
  };
}
