// The pair a server generates for itself when started without --tls-cert-file/--tls-private-key-file,
// as kube-apiserver (`<cert-dir>/apiserver.crt`) and the kubelet (`<cert-dir>/kubelet.crt`) do: generated
// once, kept in the cert dir, reused on every later start so clients that pinned it keep working.
import { mkdir, readFile, writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { createCA, issueServingCert } from './certs';

export interface SelfSignedOptions {
  /** DNS names and IPs the certificate is valid for. */
  hosts: readonly string[];
  dir: string;
  /** File base name: `<dir>/<name>.crt` and `<dir>/<name>.key`. */
  name: string;
}

export interface CertFiles {
  certFile: string;
  keyFile: string;
  /** true when this call created the pair. */
  created: boolean;
}

async function exists(path: string): Promise<boolean> {
  try {
    await readFile(path);
    return true;
  } catch {
    return false;
  }
}

export async function generateSelfSignedServing(opts: SelfSignedOptions): Promise<CertFiles> {
  const certFile = join(opts.dir, `${opts.name}.crt`);
  const keyFile = join(opts.dir, `${opts.name}.key`);
  if ((await exists(certFile)) && (await exists(keyFile))) return { certFile, keyFile, created: false };
  await mkdir(opts.dir, { recursive: true, mode: 0o755 });
  // Upstream writes the serving cert followed by its self-signed CA, so a client can pin the CA.
  const ca = await createCA(`${opts.hosts[0] ?? 'localhost'}-ca@${Math.floor(Date.now() / 1000)}`);
  const leaf = await issueServingCert(ca, { hosts: opts.hosts, cn: `${opts.hosts[0] ?? 'localhost'}@${Math.floor(Date.now() / 1000)}` });
  // Write to temporary names and rename, so a crash never leaves a half-written pair that later starts trust.
  await writeFile(certFile + '.tmp', leaf.certPem + ca.certPem, { mode: 0o644 });
  await writeFile(keyFile + '.tmp', leaf.keyPem, { mode: 0o600 });
  await rename(keyFile + '.tmp', keyFile);
  await rename(certFile + '.tmp', certFile);
  return { certFile, keyFile, created: true };
}
