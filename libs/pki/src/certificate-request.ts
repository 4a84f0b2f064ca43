// Reading a PKCS#10 certificate request as upstream's certificates.ParseCSR and CheckSignature do, synchronously
// (validation is synchronous): the PEM block must be a CERTIFICATE REQUEST, the DER must parse, and the signature
// over the request info must verify with the request's own public key.
import { createPublicKey, verify } from 'node:crypto';
// @peculiar/x509 resolves its algorithm providers through tsyringe, which needs the Reflect metadata polyfill.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

export interface ParsedCertificateRequest {
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
  /** The request's public key, SPKI DER. */
  publicKey: Buffer;
  /** `ECDSA`, `RSA`, `Ed25519` (what upstream's signers accept is checked by them). */
  publicKeyAlgorithm: string;
  /** DER of the whole request. */
  der: Buffer;
  /** The subject as a distinguished-name string (what a signer copies into the certificate). */
  subject: string;
}

/** The one PEM block of a `spec.request` (Go's pem.Decode takes the first block; anything before it is skipped). */
function firstPemBlock(pem: string): { type: string; der: Buffer } | null {
  const m = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(pem);
  if (!m) return null;
  return { type: m[1], der: Buffer.from(m[2].replace(/\s+/g, ''), 'base64') };
}

/** One DER element at `at`: where its content starts and where it ends. */
function derElement(der: Buffer, at: number): { start: number; contentStart: number; end: number } {
  if (at + 2 > der.length) throw new Error('asn1: syntax error: data truncated');
  let len = der[at + 1];
  let p = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || p + n > der.length) throw new Error('asn1: syntax error: data truncated');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[p + i];
    p += n;
  }
  if (p + len > der.length) throw new Error('asn1: syntax error: data truncated');
  return { start: at, contentStart: p, end: p + len };
}

/** The bytes the signature covers (the request info) and the signature bits, from the outer SEQUENCE. */
function signedParts(der: Buffer): { tbs: Buffer; signature: Buffer } {
  const outer = derElement(der, 0);
  const info = derElement(der, outer.contentStart);
  const alg = derElement(der, info.end);
  const sig = derElement(der, alg.end);
  // A BIT STRING's first content byte counts the unused bits (0 for signatures).
  return { tbs: der.subarray(info.start, info.end), signature: der.subarray(sig.contentStart + 1, sig.end) };
}

const HASHES: Record<string, string> = { 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' };

/**
 * Parses and checks a PEM certificate request; throws with upstream's words where they are fixed
 * (`PEM block type must be CERTIFICATE REQUEST`, `x509: ECDSA verification failure`).
 */
export function parseCertificateRequest(pem: string): ParsedCertificateRequest {
  const block = firstPemBlock(pem);
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(block.der);
  } catch (e) {
    throw new Error(`asn1: structure error: ${(e as Error).message}`);
  }
  const spki = Buffer.from(csr.publicKey.rawData);
  const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  const { tbs, signature } = signedParts(block.der);
  const algName = (csr.signatureAlgorithm as { name?: string }).name ?? '';
  const hash = HASHES[(csr.signatureAlgorithm as { hash?: { name?: string } }).hash?.name ?? ''];
  const kind = key.asymmetricKeyType === 'ec' ? 'ECDSA' : key.asymmetricKeyType === 'ed25519' ? 'Ed25519' : 'RSA';
  const ok = kind === 'Ed25519' ? verify(null, tbs, key, signature) : !!hash && !/PSS/i.test(algName) && verify(hash, tbs, key, signature);
  if (!ok) throw new Error(kind === 'ECDSA' ? 'x509: ECDSA verification failure' : kind === 'Ed25519' ? 'x509: Ed25519 verification failure' : 'crypto/rsa: verification error');
  const names = csr.subjectName.toJSON();
  const values = (k: string) => names.flatMap((rdn) => rdn[k] ?? []).map(String);
  const san = csr.getExtension('2.5.29.17') as x509.SubjectAlternativeNameExtension | null;
  const sans = (type: string) => (san?.names.toJSON() ?? []).filter((n) => n.type === type).map((n) => n.value);
  return {
    commonName: values('CN')[0] ?? '',
    organizations: values('O'),
    dnsNames: sans('dns'),
    ipAddresses: sans('ip'),
    emailAddresses: sans('email'),
    uris: sans('url'),
    publicKey: spki,
    subject: csr.subject,
    publicKeyAlgorithm: kind,
    der: block.der,
  };
}
