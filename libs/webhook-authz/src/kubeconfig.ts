// The webhook's connection file (client-go clientcmd, loaded as an explicit path): the current context's
// cluster and user, relative file names resolved against the file's directory, every problem at once in
// clientcmd's words.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** Everything needed to reach the webhook, read once. */
export interface WebhookConnection {
  /** The POST target: kubeconfig `server` with its query and fragment dropped and its path cleaned. */
  url: URL;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  /** Bearer token (`token` or the content of `tokenFile`). */
  token?: string;
  username?: string;
  password?: string;
  /** `tls-server-name`: the name sent in SNI and verified instead of the URL host. */
  serverName?: string;
  insecureSkipTlsVerify: boolean;
}

export class KubeconfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeconfigError';
  }
}

type Obj = Record<string, unknown>;

function named(list: unknown, name: string, field: string): Obj | undefined {
  if (!Array.isArray(list)) return undefined;
  const entry = list.find((e) => e && typeof e === 'object' && ((e as Obj).name ?? '') === name) as Obj | undefined;
  const inner = entry?.[field];
  return inner && typeof inner === 'object' ? (inner as Obj) : undefined;
}

const str = (o: Obj | undefined, k: string): string => (typeof o?.[k] === 'string' ? (o[k] as string) : '');

function readOrError(path: string, what: string, owner: string, errs: string[]): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
    errs.push(`unable to read ${what} ${path} for ${owner} due to open ${path}: ${reason}`);
    return undefined;
  }
}

/** path.Join("/", p): a clean absolute path without a trailing slash. */
function cleanPath(p: string): string {
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return '/' + out.join('/');
}

function aggregate(errs: string[]): string {
  const uniq = [...new Set(errs)];
  return uniq.length === 1 ? uniq[0] : `[${uniq.join(', ')}]`;
}

/** Reads and resolves the kubeconfig at `file`; throws a KubeconfigError with every problem found. */
export function loadWebhookKubeconfig(file: string): WebhookConnection {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new KubeconfigError(`stat ${file}: no such file or directory`);
    throw new KubeconfigError(`error loading ${file}: ${(e as Error).message}`);
  }
  const cfg: Obj = doc && typeof doc === 'object' ? (doc as Obj) : {};
  const base = dirname(resolve(file));
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(base, p));

  const currentContext = str(cfg, 'current-context');
  const context = named(cfg.contexts, currentContext, 'context');
  if (currentContext !== '' && !context) {
    throw new KubeconfigError(`invalid configuration: context was not found for specified context: ${currentContext}`);
  }
  const clusterName = context ? str(context, 'cluster') : '';
  const userName = context ? str(context, 'user') : '';
  const cluster = named(cfg.clusters, clusterName, 'cluster');
  const user = named(cfg.users, userName, 'user') ?? {};
  if (!cluster || Object.keys(cluster).length === 0) {
    throw new KubeconfigError('invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable');
  }

  const errs: string[] = [];
  const server = str(cluster, 'server');
  const clusterLabel = clusterName === '' ? 'default cluster' : clusterName;
  if (server === '') errs.push(clusterName === '' ? 'default cluster has no server defined' : `no server found for cluster ${JSON.stringify(clusterName)}`);
  let ca: Buffer | undefined;
  const caFile = str(cluster, 'certificate-authority');
  const caData = str(cluster, 'certificate-authority-data');
  if (caFile && caData) {
    errs.push(`certificate-authority-data and certificate-authority are both specified for ${clusterName}. certificate-authority-data will override.`);
  }
  if (caData) ca = Buffer.from(caData, 'base64');
  else if (caFile) ca = readOrError(abs(caFile), 'certificate-authority', clusterLabel, errs);
  const insecure = cluster['insecure-skip-tls-verify'] === true;

  const certFile = str(user, 'client-certificate');
  const certData = str(user, 'client-certificate-data');
  const keyFile = str(user, 'client-key');
  const keyData = str(user, 'client-key-data');
  let cert: Buffer | undefined;
  let key: Buffer | undefined;
  if (certData) cert = Buffer.from(certData, 'base64');
  else if (certFile) cert = readOrError(abs(certFile), 'client-cert', userName, errs);
  if (keyData) key = Buffer.from(keyData, 'base64');
  else if (keyFile) key = readOrError(abs(keyFile), 'client-key', userName, errs);
  if ((certFile || certData) && !(keyFile || keyData)) {
    errs.push(`client-key-data or client-key must be specified for ${userName} to use the clientCert authentication method.`);
  }
  if ((keyFile || keyData) && !(certFile || certData)) {
    errs.push(`client-cert-data or client-cert must be specified for ${userName} to use the clientCert authentication method.`);
  }
  let token = str(user, 'token');
  const tokenFile = str(user, 'tokenFile');
  if (!token && tokenFile) {
    const t = readOrError(abs(tokenFile), 'tokenFile', userName, errs);
    if (t) token = t.toString('utf8').trim();
  }
  const username = str(user, 'username');
  const password = str(user, 'password');
  if (token && (username || password)) {
    errs.push(`more than one authentication method found for ${userName}; found [token basicAuth], only one is allowed`);
  }
  if (insecure && ca) errs.push('specifying a root certificates file with the insecure flag is not allowed');

  let url: URL | undefined;
  if (server !== '') {
    try {
      url = new URL(server);
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('unsupported scheme');
      url.pathname = cleanPath(url.pathname);
      url.search = '';
      url.hash = '';
    } catch {
      errs.push(`host must be a URL or a host:port pair: ${JSON.stringify(server)}`);
    }
  }
  if (errs.length > 0 || !url) throw new KubeconfigError(`invalid configuration: ${aggregate(errs)}`);
  const conn: WebhookConnection = { url, insecureSkipTlsVerify: insecure };
  if (ca) conn.ca = ca;
  if (cert) conn.cert = cert;
  if (key) conn.key = key;
  if (token) conn.token = token;
  if (username) conn.username = username;
  if (password) conn.password = password;
  const serverName = str(cluster, 'tls-server-name');
  if (serverName) conn.serverName = serverName;
  return conn;
}
