// The node's certificates from the cluster (upstream's kubelet TLS bootstrap and certificate managers):
//   - bootstrap (--bootstrap-clconfig): when --clconfig is missing or its client certificate has expired, the
//     bootstrap credentials (a bootstrap token) ask for a client certificate, which is written to
//     <cert-dir>/clet-client-<time>.pem with clet-client-current.pem pointing at it, and --clconfig is written to
//     use it; a denied or failed request, or refused bootstrap credentials, stop the start with the reason;
//   - client rotation (rotateCertificates): a new client certificate at 70-90% of the current one's lifetime,
//     asked for with the current credentials and swapped under the running API clients (@cl/kube-client's RotatingCertificate);
//   - serving certificates (serverTLSBootstrap): a kubernetes.io/kubelet-serving certificate for the node's
//     names and addresses (approved by an administrator: no approver here signs serving requests), handed to the
//     main server when issued and renewed the same way.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { KubeClient, loadKubeconfig, RotatingCertificate, type ClientConfig } from '@cl/kube-client';
import { CertificateFileStore, validityOf, type StoredPair } from './cert-store';
import { CertificateRequestRefused, KUBELET_CLIENT_SIGNER, KUBELET_SERVING_SIGNER, newCertificateRequest, requestCertificate, type CertificateRequestSpec } from './csr-client';
import { CertificateRotator } from './rotation';

export type CertLog = (msg: string, fields?: Record<string, unknown>) => void;

export const CLIENT_PREFIX = 'clet-client';
export const SERVER_PREFIX = 'clet-server';

/** Whether the clconfig at `path` exists with a client certificate that has not expired (tokens count as valid). */
function clconfigStillValid(path: string, now: number): boolean {
  if (!existsSync(path)) return false;
  try {
    const c = loadKubeconfig(path);
    if (!c.cert) return !!c.token;
    return validityOf(c.cert.toString('utf8')).notAfter > now;
  } catch {
    return false;
  }
}

/** A clconfig that uses the current client certificate file, for the server (and CA) of the bootstrap one. */
function writeClconfig(path: string, bootstrap: ClientConfig, certFile: string): void {
  const cluster: Record<string, unknown> = { server: bootstrap.server };
  if (bootstrap.ca) cluster['certificate-authority-data'] = bootstrap.ca.toString('base64');
  if (bootstrap.insecureSkipTLSVerify) cluster['insecure-skip-tls-verify'] = true;
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'default-cluster', cluster }],
    contexts: [{ name: 'default-context', context: { cluster: 'default-cluster', namespace: 'default', user: 'default-auth' } }],
    'current-context': 'default-context',
    users: [{ name: 'default-auth', user: { 'client-certificate': certFile, 'client-key': certFile } }],
  };
  mkdirSync(dirname(path), { recursive: true });
  // JSON is YAML: any kubeconfig reader takes it.
  writeFileSync(path, JSON.stringify(doc, null, 2) + '\n', { mode: 0o600 });
}

async function obtain(client: KubeClient, spec: CertificateRequestSpec, store: CertificateFileStore, log: CertLog, signal?: AbortSignal): Promise<StoredPair> {
  const { keyPem, csrPem } = await newCertificateRequest(spec);
  const { name, certificatePem } = await requestCertificate(client, spec, csrPem, signal);
  log('Certificate issued', { csr: name, signerName: spec.signerName });
  return store.update(certificatePem, keyPem);
}

export interface BootstrapOptions {
  clconfig: string;
  bootstrapClconfig: string;
  certDir: string;
  nodeName: string;
  log: CertLog;
}

/** Makes sure --clconfig holds usable credentials before the agent reads it (upstream's LoadClientCert). */
export async function bootstrapClientCertificate(o: BootstrapOptions): Promise<void> {
  const now = Date.now();
  if (clconfigStillValid(o.clconfig, now)) {
    o.log('Client configuration is still valid, not bootstrapping', { path: o.clconfig });
    return;
  }
  let bootstrap: ClientConfig;
  try {
    bootstrap = loadKubeconfig(o.bootstrapClconfig);
  } catch (e) {
    throw new Error(`failed to run clet: unable to load bootstrap clconfig: ${(e as Error).message}`);
  }
  const store = new CertificateFileStore(o.certDir, CLIENT_PREFIX);
  const existing = store.current();
  if (existing && existing.notAfter > now) {
    o.log('Using the existing client certificate', { path: store.currentPath });
    writeClconfig(o.clconfig, bootstrap, store.currentPath);
    return;
  }
  o.log('Using bootstrap clconfig to generate TLS client cert, key and clconfig file', { bootstrap: o.bootstrapClconfig, clconfig: o.clconfig });
  const client = new KubeClient({ ...bootstrap, userAgent: 'clet-bootstrap' });
  try {
    await obtain(client, { signerName: KUBELET_CLIENT_SIGNER, nodeName: o.nodeName }, store, o.log);
  } catch (e) {
    const why = e instanceof CertificateRequestRefused ? e.message : `cannot create certificate signing request: ${(e as Error).message}`;
    throw new Error(`failed to run clet: unable to bootstrap the client certificate: ${why}`);
  } finally {
    client.close();
  }
  writeClconfig(o.clconfig, bootstrap, store.currentPath);
}

export interface RotationOptions {
  api: ClientConfig;
  certDir: string;
  nodeName: string;
  log: CertLog;
}

/**
 * Client certificate rotation: puts a RotatingCertificate on the API connection (call before the API clients are
 * made: every client made from the config, or a copy of it, follows it) and renews at each deadline. Needs a
 * client certificate in --clconfig.
 */
export function startClientRotation(o: RotationOptions): { stop(): void } {
  if (!o.api.cert || !o.api.key) throw new Error('--rotate-certificates needs a client certificate in --clconfig (or --bootstrap-clconfig)');
  const rotating = new RotatingCertificate({ cert: o.api.cert, key: o.api.key });
  o.api.rotatingCertificate = rotating;
  const store = new CertificateFileStore(o.certDir, CLIENT_PREFIX);
  const abort = new AbortController();
  const rotator = new CertificateRotator('client', {
    current: () => validityOf(rotating.current().cert.toString('utf8')),
    renew: async () => {
      // The current credentials ask (as the node: the selfnodeclient permission approves it).
      const client = new KubeClient({ ...o.api, userAgent: 'clet-certificate-manager' });
      try {
        const pair = await obtain(client, { signerName: KUBELET_CLIENT_SIGNER, nodeName: o.nodeName }, store, o.log, abort.signal);
        const both = Buffer.from(pair.certPem + pair.keyPem);
        rotating.rotate({ cert: both, key: both });
      } finally {
        client.close();
      }
    },
    log: o.log,
  });
  rotator.start();
  return {
    stop() {
      abort.abort();
      rotator.stop();
    },
  };
}

export interface ServingOptions {
  api: ClientConfig;
  certDir: string;
  nodeName: string;
  hostnames: string[];
  addresses: string[];
  log: CertLog;
  /** Gets each issued serving pair (the first one starts the main server, later ones replace its context). */
  onCertificate: (certPem: string, keyPem: string) => void;
}

/** Serving certificates through kubernetes.io/kubelet-serving, renewed at 70-90% of their lifetime. */
export function startServingCertificates(o: ServingOptions): { stop(): void } {
  const store = new CertificateFileStore(o.certDir, SERVER_PREFIX);
  const abort = new AbortController();
  let current = store.current();
  if (current && current.notAfter > Date.now()) o.onCertificate(current.certPem, current.keyPem);
  else current = null;
  const client = new KubeClient({ ...o.api, userAgent: 'clet-certificate-manager' });
  const spec: CertificateRequestSpec = { signerName: KUBELET_SERVING_SIGNER, nodeName: o.nodeName, dnsNames: [...new Set(o.hostnames)], ipAddresses: [...new Set(o.addresses)] };
  const rotator = new CertificateRotator('serving', {
    current: () => (current ? { notBefore: current.notBefore, notAfter: current.notAfter } : null),
    renew: async () => {
      current = await obtain(client, spec, store, o.log, abort.signal);
      o.onCertificate(current.certPem, current.keyPem);
    },
    log: o.log,
  });
  rotator.start();
  return {
    stop() {
      abort.abort();
      rotator.stop();
      client.close();
    },
  };
}

