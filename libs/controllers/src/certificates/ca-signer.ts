// Issuing a certificate for a request with a CA key pair from files (--cluster-signing-cert-file/-key-file), as
// upstream's signer does: the subject and subject alternative names come from the request, the key usages from
// spec.usages, the validity from the signing duration; the issued PEM is the leaf certificate alone.
import { createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
// @peculiar/x509 resolves its algorithm providers through tsyringe, which needs the Reflect metadata polyfill.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import type { ParsedCertificateRequest } from '@cl/pki';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);


const KEY_USAGE_FLAGS: Record<string, number> = {
  'digital signature': x509.KeyUsageFlags.digitalSignature,
  'content commitment': x509.KeyUsageFlags.nonRepudiation,
  'key encipherment': x509.KeyUsageFlags.keyEncipherment,
  'key agreement': x509.KeyUsageFlags.keyAgreement,
  'data encipherment': x509.KeyUsageFlags.dataEncipherment,
  'cert sign': x509.KeyUsageFlags.keyCertSign,
  'crl sign': x509.KeyUsageFlags.cRLSign,
  'encipher only': x509.KeyUsageFlags.encipherOnly,
  'decipher only': x509.KeyUsageFlags.decipherOnly,
};
const EXT_KEY_USAGES: Record<string, string> = {
  'server auth': x509.ExtendedKeyUsage.serverAuth,
  'client auth': x509.ExtendedKeyUsage.clientAuth,
  'code signing': x509.ExtendedKeyUsage.codeSigning,
  'email protection': x509.ExtendedKeyUsage.emailProtection,
  timestamping: x509.ExtendedKeyUsage.timeStamping,
  'ocsp signing': x509.ExtendedKeyUsage.ocspSigning,
};

/** A CA that signs: its certificate and private key, loaded once. */
export class CertificateAuthority {
  private constructor(
    readonly cert: x509.X509Certificate,
    private readonly key: webcrypto.CryptoKey,
    private readonly algorithm: webcrypto.AlgorithmIdentifier | webcrypto.EcdsaParams,
  ) {}

  /** From PEM files' contents; the key may be PKCS#8, SEC1 (EC PRIVATE KEY) or PKCS#1 (RSA PRIVATE KEY). */
  static async load(certPem: string, keyPem: string): Promise<CertificateAuthority> {
    const cert = new x509.X509Certificate(certPem);
    const key = createPrivateKey(keyPem);
    const pkcs8 = key.export({ type: 'pkcs8', format: 'der' });
    if (key.asymmetricKeyType === 'ec') {
      const curve = (key.asymmetricKeyDetails?.namedCurve ?? 'prime256v1') === 'secp384r1' ? 'P-384' : 'P-256';
      const alg = { name: 'ECDSA', namedCurve: curve };
      const imported = await webcrypto.subtle.importKey('pkcs8', pkcs8, alg, false, ['sign']);
      return new CertificateAuthority(cert, imported, { name: 'ECDSA', hash: curve === 'P-384' ? 'SHA-384' : 'SHA-256' } as webcrypto.EcdsaParams);
    }
    if (key.asymmetricKeyType === 'rsa') {
      const alg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
      const imported = await webcrypto.subtle.importKey('pkcs8', pkcs8, alg, false, ['sign']);
      return new CertificateAuthority(cert, imported, alg);
    }
    throw new Error(`unsupported CA key type ${key.asymmetricKeyType}`);
  }

  get notAfter(): number {
    return this.cert.notAfter.getTime();
  }

  /** Signs a certificate for the request; PEM with a trailing newline. */
  async issue(req: ParsedCertificateRequest, usages: readonly string[], validity: { notBefore: number; notAfter: number }): Promise<string> {
    let flags = 0;
    for (const u of usages) flags |= KEY_USAGE_FLAGS[u] ?? 0;
    const eku = usages.map((u) => EXT_KEY_USAGES[u]).filter(Boolean);
    const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
    if (flags) extensions.push(new x509.KeyUsagesExtension(flags, true));
    if (eku.length) extensions.push(new x509.ExtendedKeyUsageExtension(eku));
    extensions.push(await x509.AuthorityKeyIdentifierExtension.create(this.cert));
    const names = [
      ...req.dnsNames.map((value) => ({ type: 'dns' as const, value })),
      ...req.ipAddresses.map((value) => ({ type: 'ip' as const, value })),
      ...req.emailAddresses.map((value) => ({ type: 'email' as const, value })),
      ...req.uris.map((value) => ({ type: 'url' as const, value })),
    ];
    if (names.length) extensions.push(new x509.SubjectAlternativeNameExtension(names));
    const serial = randomBytes(16);
    serial[0] &= 0x7f;
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial.toString('hex'),
      subject: req.subject,
      issuer: this.cert.subject,
      notBefore: new Date(validity.notBefore),
      notAfter: new Date(validity.notAfter),
      signingAlgorithm: this.algorithm,
      publicKey: new x509.PublicKey(req.publicKey),
      signingKey: this.key,
      extensions,
    });
    return cert.toString('pem') + '\n';
  }
}

/** The notAfter of a PEM certificate (the first one), or undefined when it does not parse. */
export function certificateNotAfter(pem: string): number | undefined {
  try {
    return new x509.X509Certificate(pem).notAfter.getTime();
  } catch {
    return undefined;
  }
}
