// pkg/authentication/request/x509 with CommonNameUserConversion: a client certificate that chains to the
// client CA names the user (CN) and its groups (every O). The server accepts any client certificate at
// the TLS layer (so other credentials can still be tried), which is why the chain is verified here.
import { createHash, X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket, PeerCertificate, DetailedPeerCertificate } from 'node:tls';
import type { AuthResponse, RequestAuthenticator } from './types';

export interface X509Options {
  /** PEM bundle of the CAs that sign client certificates (the content of --client-ca-file). */
  clientCA: string | Buffer;
  /** Test hook for validity checks. */
  now?: () => Date;
}

const EKU_CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const EKU_ANY = '2.5.29.37.0';
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';
const MAX_CHAIN = 10;

/** Splits a PEM bundle into certificates; throws when it holds none. */
export function parsePemBundle(pem: string | Buffer): X509Certificate[] {
  const text = Buffer.isBuffer(pem) ? pem.toString('utf8') : pem;
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const certs = blocks.map((b) => new X509Certificate(b));
  if (certs.length === 0) throw new Error('data does not contain any valid RSA or ECDSA certificates');
  return certs;
}

function isTLSSocket(s: unknown): s is TLSSocket {
  return typeof (s as TLSSocket | undefined)?.getPeerCertificate === 'function';
}

/** The presented chain, leaf first, as X509Certificates. */
function presentedChain(peer: DetailedPeerCertificate): X509Certificate[] {
  const out: X509Certificate[] = [];
  const seen = new Set<string>();
  let cur: DetailedPeerCertificate | undefined = peer;
  while (cur && cur.raw && !seen.has(cur.fingerprint256) && out.length < MAX_CHAIN) {
    seen.add(cur.fingerprint256);
    out.push(new X509Certificate(cur.raw));
    cur = cur.issuerCertificate;
  }
  return out;
}

function checkValidity(c: X509Certificate, now: Date): void {
  const from = new Date(c.validFrom);
  const to = new Date(c.validTo);
  if (now < from) throw new Error(`x509: certificate has expired or is not yet valid: current time ${now.toISOString()} is before ${from.toISOString()}`);
  if (now > to) throw new Error(`x509: certificate has expired or is not yet valid: current time ${now.toISOString()} is after ${to.toISOString()}`);
}

function allowsClientAuth(c: X509Certificate): boolean {
  const eku = c.keyUsage; // Node exposes the extended key usage OIDs here; undefined means "any".
  return !eku || eku.length === 0 || eku.includes(EKU_CLIENT_AUTH) || eku.includes(EKU_ANY);
}

function signedBy(child: X509Certificate, parent: X509Certificate): boolean {
  return child.checkIssued(parent) && child.verify(parent.publicKey);
}

/** Go's x509.Verify, reduced to what client authentication needs. Throws with Go-like messages. */
export function verifyClientChain(leaf: X509Certificate, intermediates: X509Certificate[], roots: X509Certificate[], now: Date): void {
  checkValidity(leaf, now);
  if (!allowsClientAuth(leaf)) throw new Error('x509: certificate specifies an incompatible key usage');
  let cur = leaf;
  const used = new Set<X509Certificate>();
  for (let depth = 0; depth < MAX_CHAIN; depth++) {
    const root = roots.find((r) => signedBy(cur, r));
    if (root) {
      checkValidity(root, now);
      return;
    }
    const next = intermediates.find((i) => !used.has(i) && i.ca && signedBy(cur, i));
    if (!next) break;
    checkValidity(next, now);
    if (!allowsClientAuth(next)) throw new Error('x509: certificate specifies an incompatible key usage');
    used.add(next);
    cur = next;
  }
  throw new Error('x509: certificate signed by unknown authority');
}

/** Finds one extension's extnValue in DER by its OID bytes; good enough for log identifiers. */
function extensionKeyId(der: Buffer, oid: number[]): string {
  const pat = Buffer.from([0x06, 0x03, ...oid]);
  const at = der.indexOf(pat);
  if (at < 0) return '';
  let i = at + pat.length;
  if (der[i] === 0x01) i += 3; // critical BOOLEAN
  if (der[i] !== 0x04) return '';
  i += 2; // outer OCTET STRING (short form lengths are all a key id needs)
  if (der[i] === 0x04) i += 1; // SKID: OCTET STRING keyId
  else if (der[i] === 0x30 && der[i + 2] === 0x80) i += 3; // AKID: SEQUENCE { [0] keyId }
  else return '';
  const len = der[i];
  return [...der.subarray(i + 1, i + 1 + len)].map((b) => b.toString(16).toUpperCase().padStart(2, '0')).join(':');
}

function certIdentity(c: X509Certificate): string {
  const sn = BigInt('0x' + c.serialNumber).toString(10);
  return `SN=${sn}, SKID=${extensionKeyId(c.raw, [0x55, 0x1d, 0x0e])}, AKID=${extensionKeyId(c.raw, [0x55, 0x1d, 0x23])}`;
}

function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

type Subject = PeerCertificate['subject'] & Record<string, string | string[] | undefined>;

export function x509Authenticator(opts: X509Options): RequestAuthenticator {
  const roots = parsePemBundle(opts.clientCA);
  const now = opts.now ?? (() => new Date());
  return {
    authenticate(req: IncomingMessage): AuthResponse | null {
      const sock = req.socket;
      if (!isTLSSocket(sock)) return null;
      const peer = sock.getPeerCertificate(true);
      if (!peer || !peer.raw) return null;
      const [leaf, ...intermediates] = presentedChain(peer);
      try {
        verifyClientChain(leaf, intermediates, roots, now());
      } catch (e) {
        throw new Error(`verifying certificate ${certIdentity(leaf)} failed: ${(e as Error).message}`);
      }
      const subject = peer.subject as Subject;
      const cn = asList(subject.CN)[0] ?? '';
      if (!cn) return null;
      const uids = asList(subject.UID);
      if (uids.length > 1) throw new Error(`expected 1 UID, but found multiple: [${uids.join(' ')}]`);
      if (uids.length === 1 && uids[0] === '') throw new Error('UID cannot be an empty string');
      const fingerprint = createHash('sha256').update(leaf.raw).digest('hex');
      return {
        user: {
          username: cn,
          uid: uids[0] ?? '',
          groups: asList(subject.O),
          extra: { [CREDENTIAL_ID_KEY]: [`X509SHA256=${fingerprint}`] },
        },
      };
    },
  };
}
