// Certificates for real TLS everywhere: the self-signed serving pair a server makes for itself when none is
// given, and the CA / client / serving certificates that operators and tests issue. ECDSA P-256 keeps key
// generation in the millisecond range, so a fresh machine starts without a noticeable pause.
import { webcrypto, randomBytes, X509Certificate } from 'node:crypto';
// @peculiar/x509 resolves its algorithm providers through tsyringe, which needs the Reflect metadata polyfill.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

export interface PemPair {
  certPem: string;
  keyPem: string;
}

export interface CertOptions {
  /** Days of validity from now (default 365). */
  days?: number;
}

async function newKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function keyToPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END PRIVATE KEY-----\n`;
}

async function pemToKey(pem: string): Promise<CryptoKey> {
  const b64 = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  return (await webcrypto.subtle.importKey('pkcs8', Buffer.from(b64, 'base64'), ALG, true, ['sign'])) as CryptoKey;
}

function serial(): string {
  const b = randomBytes(16);
  b[0] &= 0x7f; // positive, as RFC 5280 requires
  return b.toString('hex');
}

function validity(days = 365) {
  const now = Date.now();
  // Back-dated by an hour so clocks that differ a little still accept a freshly made certificate.
  return { notBefore: new Date(now - 3_600_000), notAfter: new Date(now + days * DAY_MS) };
}

/** Builds an X.500 name; several `O` values become several organization attributes (the user's groups). */
function distinguishedName(cn: string, organizations: readonly string[] = []): x509.JsonName {
  return [{ CN: [cn] }, ...organizations.map((o) => ({ O: [o] }))];
}

function altNames(hosts: readonly string[]): x509.SubjectAlternativeNameExtension {
  const isIp = (h: string) => /^[\d.]+$/.test(h) || h.includes(':');
  return new x509.SubjectAlternativeNameExtension(hosts.map((h) => ({ type: isIp(h) ? 'ip' : 'dns', value: h })));
}

/** A self-signed certificate authority. */
export async function createCA(commonName: string, opts: CertOptions = {}): Promise<PemPair> {
  const keys = await newKeys();
  const name = new x509.Name(distinguishedName(commonName)).toString();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name,
    ...validity(opts.days),
    signingAlgorithm: ALG,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: await keyToPem(keys.privateKey) };
}

interface LeafSpec {
  commonName: string;
  organizations?: readonly string[];
  hosts?: readonly string[];
  usages: Array<'serverAuth' | 'clientAuth'>;
  days?: number;
}

async function issue(ca: PemPair, spec: LeafSpec): Promise<PemPair> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await pemToKey(ca.keyPem);
  const keys = await newKeys();
  const eku = spec.usages.map((u) => (u === 'serverAuth' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth));
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension(eku),
    await x509.AuthorityKeyIdentifierExtension.create(caCert),
  ];
  if (spec.hosts?.length) extensions.push(altNames(spec.hosts));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: new x509.Name(distinguishedName(spec.commonName, spec.organizations)).toString(),
    issuer: caCert.subject,
    ...validity(spec.days),
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions,
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: await keyToPem(keys.privateKey) };
}

/** A client certificate: CN is the user name, each O a group (how x509 authentication reads it). */
export function issueClientCert(ca: PemPair, who: { cn: string; groups?: readonly string[]; days?: number }): Promise<PemPair> {
  return issue(ca, { commonName: who.cn, organizations: who.groups, usages: ['clientAuth'], days: who.days });
}

/** A serving certificate for the given DNS names and IP addresses. */
export function issueServingCert(ca: PemPair, spec: { hosts: readonly string[]; cn?: string; days?: number }): Promise<PemPair> {
  return issue(ca, { commonName: spec.cn ?? spec.hosts[0] ?? 'localhost', hosts: spec.hosts, usages: ['serverAuth'], days: spec.days });
}

/** Subject CN and O values of a PEM certificate, as x509 authentication maps them to a user. */
export function certificateSubject(pem: string): { commonName: string; organizations: string[] } {
  const cert = new X509Certificate(pem);
  const fields = cert.subject.split('\n');
  const values = (k: string) => fields.filter((f) => f.startsWith(k + '=')).map((f) => f.slice(k.length + 1));
  return { commonName: values('CN')[0] ?? '', organizations: values('O') };
}
