// The token issuer's keys: the private key that signs (--service-account-signing-key-file, or one generated once
// and kept in the cert dir) and the public keys that verify (--service-account-key-file, PEM files that may hold
// several public or private keys, as upstream's keyutil.ParsePublicKeysPEM reads them).
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

export interface VerificationKey {
  key: KeyObject;
  kid: string;
  alg: string;
}

export interface SigningKey extends VerificationKey {
  privateKey: KeyObject;
}

/** The generated key's file name in --cert-dir. */
export const GENERATED_KEY_FILE = 'service-account.key';

/** The JWS algorithm upstream signs with for a key: RS256 for RSA, ES256/384/512 by curve. */
export function algorithmOf(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
    throw new Error(`unknown private key curve, must be 256, 384, or 521`);
  }
  throw new Error(`unknown private key type ${key.asymmetricKeyType}, must be *rsa.PrivateKey, *ecdsa.PrivateKey, or jose.OpaqueSigner`);
}

/** Upstream's key ID: the unpadded base64url SHA-256 of the public key's DER (PKIX) form. */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** Every public key in a PEM text; private keys count through their public half; other blocks are skipped. */
export function publicKeysFromPem(text: string, file: string): VerificationKey[] {
  const out: VerificationKey[] = [];
  for (const m of text.matchAll(PEM_BLOCK)) {
    const type = m[1];
    let pub: KeyObject;
    if (type.endsWith('PRIVATE KEY')) pub = createPublicKey(createPrivateKey(m[0]));
    else if (type.endsWith('PUBLIC KEY')) pub = createPublicKey(m[0]);
    else continue;
    out.push({ key: pub, kid: keyIdOf(pub), alg: algorithmOf(pub) });
  }
  if (out.length === 0) throw new Error(`data does not contain any valid RSA or ECDSA public keys (${file})`);
  return out;
}

export function signingKeyFromPem(text: string): SigningKey {
  const privateKey = createPrivateKey(text);
  const pub = createPublicKey(privateKey);
  return { privateKey, key: pub, kid: keyIdOf(pub), alg: algorithmOf(privateKey) };
}

/** The key in `<certDir>/service-account.key`, generated (RSA 2048, mode 0600) when absent. */
export function generatedSigningKey(certDir: string): { key: SigningKey; file: string; created: boolean } {
  const file = join(certDir, GENERATED_KEY_FILE);
  if (existsSync(file)) return { key: signingKeyFromPem(readFileSync(file, 'utf8')), file, created: false };
  mkdirSync(certDir, { recursive: true, mode: 0o755 });
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  // Temporary name and rename, so a crash never leaves half a key that later starts would trust.
  writeFileSync(file + '.tmp', pem, { mode: 0o600 });
  renameSync(file + '.tmp', file);
  return { key: signingKeyFromPem(pem), file, created: true };
}

export interface IssuerKeys {
  signing: SigningKey;
  verification: VerificationKey[];
}

/** Loads the configured keys; errors carry upstream's wording and are collected, not thrown one by one. */
export function loadIssuerKeys(opts: { signingKeyFile: string; keyFiles: string[]; certDir: string }, errors: string[]): IssuerKeys | null {
  let signing: SigningKey | null = null;
  if (opts.signingKeyFile) {
    try {
      signing = signingKeyFromPem(readFileSync(opts.signingKeyFile, 'utf8'));
    } catch (e) {
      errors.push(`failed to parse service-account-issuer-key-file: ${describe(e, opts.signingKeyFile)}`);
    }
  } else {
    try {
      signing = generatedSigningKey(opts.certDir).key;
    } catch (e) {
      errors.push(`failed to create the service account signing key in ${opts.certDir}: ${(e as Error).message}`);
    }
  }
  const verification: VerificationKey[] = [];
  for (const f of opts.keyFiles) {
    try {
      verification.push(...publicKeysFromPem(readFileSync(f, 'utf8'), f));
    } catch (e) {
      errors.push(`failed to parse service-account-key-file: ${describe(e, f)}`);
    }
  }
  if (!signing) return null;
  // No --service-account-key-file, or the generated key (which no file can name): the signing key verifies its own tokens.
  if (opts.keyFiles.length === 0 || !opts.signingKeyFile) verification.push({ key: signing.key, kid: signing.kid, alg: signing.alg });
  return { signing, verification };
}

function describe(e: unknown, file: string): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `open ${file}: no such file or directory`;
  return (e as Error).message;
}
