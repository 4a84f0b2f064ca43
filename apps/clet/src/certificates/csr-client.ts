// Asking the cluster for a certificate, as the kubelet's bootstrap and certificate manager do: a fresh ECDSA
// P-256 key, a PKCS#10 request naming the node (CN system:node:<name>, O system:nodes), a
// CertificateSigningRequest for the signer with upstream's usages, then waiting (watching) until the request
// has its certificate, or is Denied or Failed.
import { webcrypto } from 'node:crypto';
// @peculiar/x509 resolves its algorithm providers through tsyringe, which needs the Reflect metadata polyfill.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { isGone, type KubeClient } from '@cl/kube-client';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export const KUBELET_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';
const CSR_PATH = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface CertificateRequestSpec {
  signerName: string;
  nodeName: string;
  /** Serving certificates: the node's host names and addresses. */
  dnsNames?: string[];
  ipAddresses?: string[];
}

/** Upstream's usages for an ECDSA key (key encipherment is for RSA keys only, since 1.27). */
export function usagesFor(signerName: string): string[] {
  return signerName === KUBELET_SERVING_SIGNER ? ['digital signature', 'server auth'] : ['digital signature', 'client auth'];
}

/** A new key (PKCS#8 PEM) and a PEM request for it. */
export async function newCertificateRequest(spec: CertificateRequestSpec): Promise<{ keyPem: string; csrPem: string }> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const sans = [...(spec.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })), ...(spec.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value }))];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: [{ CN: [`system:node:${spec.nodeName}`] }, { O: ['system:nodes'] }],
    keys,
    signingAlgorithm: ALG,
    extensions: sans.length ? [new x509.SubjectAlternativeNameExtension(sans)] : [],
  });
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END PRIVATE KEY-----\n`;
  return { keyPem, csrPem: csr.toString('pem') + '\n' };
}

interface Csr {
  metadata: { name?: string };
  status?: { certificate?: string; conditions?: Array<{ type: string; reason?: string; message?: string }> };
}

/** The request ended without a certificate: denied by an approver or failed by the signer. */
export class CertificateRequestRefused extends Error {}

function outcome(c: Csr): { certificate: string } | { refused: string } | null {
  const refusal = (c.status?.conditions ?? []).find((x) => x.type === 'Denied' || x.type === 'Failed');
  // client-go's words (csr.WaitForCertificate).
  if (refusal) return { refused: `certificate signing request ${refusal.type === 'Denied' ? 'is denied' : 'failed'}, reason: ${refusal.reason ?? ''}, message: ${refusal.message ?? ''}` };
  if (c.status?.certificate) return { certificate: Buffer.from(c.status.certificate, 'base64').toString('utf8') };
  return null;
}

/**
 * Creates the CertificateSigningRequest and resolves with the issued PEM certificate once it is there; rejects
 * with CertificateRequestRefused when it is denied or failed, or with the API error that prevented asking.
 */
export async function requestCertificate(client: KubeClient, spec: CertificateRequestSpec, csrPem: string, signal?: AbortSignal): Promise<{ name: string; certificatePem: string }> {
  const created = await client.create<Csr>(CSR_PATH, {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { generateName: spec.signerName === KUBELET_SERVING_SIGNER ? 'csr-' : 'node-csr-' },
    spec: { request: Buffer.from(csrPem).toString('base64'), signerName: spec.signerName, usages: usagesFor(spec.signerName) },
  });
  const name = created.metadata.name!;
  for (;;) {
    if (signal?.aborted) throw new Error('stopped while waiting for the certificate');
    const current = await client.get<Csr & { metadata: { resourceVersion?: string } }>(`${CSR_PATH}/${name}`);
    const first = outcome(current);
    if (first) {
      if ('refused' in first) throw new CertificateRequestRefused(first.refused);
      return { name, certificatePem: first.certificate };
    }
    // Watch this one request from what was read until it is decided; a closed or expired watch reads again.
    const decided = await new Promise<{ certificate: string } | { refused: string } | null>((resolve) => {
      let result: { certificate: string } | { refused: string } | null = null;
      const handle = client.watch(CSR_PATH, { fieldSelector: `metadata.name=${name}`, resourceVersion: current.metadata.resourceVersion, timeoutSeconds: 60 }, (type, obj) => {
        if (type !== 'ADDED' && type !== 'MODIFIED') return;
        result = outcome(obj as Csr);
        if (result) handle.stop();
      });
      const abort = () => handle.stop();
      signal?.addEventListener('abort', abort, { once: true });
      void handle.done.then((err) => {
        signal?.removeEventListener('abort', abort);
        if (err && !isGone(err) && !result) setTimeout(() => resolve(null), 1000).unref();
        else resolve(result);
      });
    });
    if (decided) {
      if ('refused' in decided) throw new CertificateRequestRefused(decided.refused);
      return { name, certificatePem: decided.certificate };
    }
  }
}
