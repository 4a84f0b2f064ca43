// The certificate files under --cert-dir as the kubelet keeps them (certificate.NewFileStore): each issued pair
// in `<prefix>-<timestamp>.pem` (certificate then key), and `<prefix>-current.pem` a symlink to the newest,
// replaced atomically, so readers (the written clconfig) always find a whole pair.
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface StoredPair {
  certPem: string;
  keyPem: string;
  notBefore: number;
  notAfter: number;
}

/** `2006-01-02-15-04-05`, the kubelet's file timestamp (UTC here). */
function stamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}-${p(d.getUTCHours())}-${p(d.getUTCMinutes())}-${p(d.getUTCSeconds())}`;
}

/** The certificate and key of a combined PEM file (the key block is the first PRIVATE KEY of any kind). */
export function splitPair(pem: string): { certPem: string; keyPem: string } {
  const cert = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
  const key = /-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]+?-----END \1PRIVATE KEY-----\n?/.exec(pem);
  return { certPem: cert.join(''), keyPem: key ? key[0] : '' };
}

/** The validity of the first certificate of a PEM text (which may hold its key too). */
export function validityOf(pem: string): { notBefore: number; notAfter: number } {
  const first = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(pem);
  if (!first) throw new Error('no certificate');
  const c = new X509Certificate(first[0]);
  return { notBefore: Date.parse(c.validFrom), notAfter: Date.parse(c.validTo) };
}

export class CertificateFileStore {
  constructor(
    readonly dir: string,
    /** `clet-client` or `clet-server`. */
    readonly prefix: string,
  ) {}

  get currentPath(): string {
    return join(this.dir, `${this.prefix}-current.pem`);
  }

  /** The current pair, or null when there is none or it does not parse. */
  current(): StoredPair | null {
    if (!existsSync(this.currentPath)) return null;
    try {
      const { certPem, keyPem } = splitPair(readFileSync(this.currentPath, 'utf8'));
      if (!certPem || !keyPem) return null;
      return { certPem, keyPem, ...validityOf(certPem) };
    } catch {
      return null;
    }
  }

  /** Writes a new pair and points `-current.pem` at it; returns it. */
  update(certPem: string, keyPem: string, now = new Date()): StoredPair {
    mkdirSync(this.dir, { recursive: true, mode: 0o755 });
    const file = join(this.dir, `${this.prefix}-${stamp(now)}.pem`);
    writeFileSync(file, certPem + keyPem, { mode: 0o600 });
    const tmp = `${this.currentPath}.tmp`;
    if (existsSync(tmp)) unlinkSync(tmp);
    symlinkSync(file, tmp);
    renameSync(tmp, this.currentPath);
    return { certPem, keyPem, ...validityOf(certPem) };
  }
}
