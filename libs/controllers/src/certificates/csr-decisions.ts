// The decisions of kube-controller-manager's certificate controllers, free of I/O so tables can test them:
// which requests the approver recognizes (pkg/controller/certificates/approver), which requests each built-in
// signer accepts (pkg/apis/certificates/v1 helpers, pkg/controller/certificates/signer), how long an issued
// certificate lives, and when the cleaner removes a request (pkg/controller/certificates/cleaner).
import type { CsrCondition } from '@cl/api';

export const KUBELET_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';
export const APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
export const BUILTIN_SIGNERS = [APISERVER_CLIENT_SIGNER, KUBELET_CLIENT_SIGNER, KUBELET_SERVING_SIGNER] as const;
export type BuiltinSigner = (typeof BUILTIN_SIGNERS)[number];

export interface Csr {
  metadata: { name?: string; uid?: string; resourceVersion?: string; creationTimestamp?: string };
  spec: { request?: string; signerName?: string; expirationSeconds?: number; usages?: string[]; username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  status?: { conditions?: CsrCondition[]; certificate?: string };
}

/** What the decisions read of a parsed request. */
export interface RequestSubject {
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
}

const has = (c: Csr, type: string) => (c.status?.conditions ?? []).some((x) => x.type === type);
export const isApproved = (c: Csr) => has(c, 'Approved');
export const isDenied = (c: Csr) => has(c, 'Denied');
export const isFailed = (c: Csr) => has(c, 'Failed');
export const isIssued = (c: Csr) => !!c.status?.certificate;

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));
const NODE_USER_PREFIX = 'system:node:';
const NODES_GROUP = 'system:nodes';

/** upstream ValidateKubeletClientCSR; null when the request is a node's client certificate request. */
export function kubeletClientProblem(r: RequestSubject, usages: readonly string[]): string | null {
  if (!sameSet(r.organizations, [NODES_GROUP])) return 'subject organization is not system:nodes';
  if (r.dnsNames.length) return 'DNS subjectAltNames are not allowed';
  if (r.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (r.ipAddresses.length) return 'IP subjectAltNames are not allowed';
  if (r.uris.length) return 'URI subjectAltNames are not allowed';
  if (!r.commonName.startsWith(NODE_USER_PREFIX)) return 'subject common name does not begin with system:node:';
  // Key encipherment is optional (ECDSA keys do not use it), as since 1.27.
  if (!sameSet(usages, ['digital signature', 'client auth']) && !sameSet(usages, ['digital signature', 'key encipherment', 'client auth'])) {
    return `usages did not match ["digital signature" "key encipherment" "client auth"]`;
  }
  return null;
}

/** upstream ValidateKubeletServingCSR. */
export function kubeletServingProblem(r: RequestSubject, usages: readonly string[]): string | null {
  if (!sameSet(r.organizations, [NODES_GROUP])) return 'subject organization is not system:nodes';
  if (r.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (r.uris.length) return 'URI subjectAltNames are not allowed';
  if (r.dnsNames.length === 0 && r.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (!r.commonName.startsWith(NODE_USER_PREFIX)) return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, ['digital signature', 'server auth']) && !sameSet(usages, ['digital signature', 'key encipherment', 'server auth'])) {
    return `usages did not match ["digital signature" "key encipherment" "server auth"]`;
  }
  return null;
}

/** The kube-apiserver-client signer: client certificates only. */
export function apiserverClientProblem(_r: RequestSubject, usages: readonly string[]): string | null {
  const allowed = ['digital signature', 'key encipherment', 'client auth'];
  const bad = usages.filter((u) => !allowed.includes(u));
  if (bad.length) return `invalid usage for client certificate: ${bad[0]}`;
  if (!usages.includes('client auth')) return 'missing required usages: client auth';
  return null;
}

/** Why a built-in signer refuses to sign a request (the signer then sets Failed), or null. */
export function signerProblem(signer: BuiltinSigner, r: RequestSubject, usages: readonly string[]): string | null {
  if (signer === KUBELET_CLIENT_SIGNER) return kubeletClientProblem(r, usages);
  if (signer === KUBELET_SERVING_SIGNER) return kubeletServingProblem(r, usages);
  return apiserverClientProblem(r, usages);
}

export interface Recognition {
  /** The SubjectAccessReview's subresource of certificatesigningrequests that must allow `create`. */
  subresource: 'selfnodeclient' | 'nodeclient';
  message: string;
}

/**
 * The approver's recognizers, most specific first: a node renewing its own client certificate (`selfnodeclient`),
 * then any node client certificate request (`nodeclient`, what bootstrap tokens are granted).
 */
export function recognize(c: Csr, r: RequestSubject): Recognition[] {
  if (c.spec.signerName !== KUBELET_CLIENT_SIGNER) return [];
  if (kubeletClientProblem(r, c.spec.usages ?? []) !== null) return [];
  const out: Recognition[] = [];
  if (c.spec.username === r.commonName) out.push({ subresource: 'selfnodeclient', message: 'Auto approving self kubelet client certificate after SubjectAccessReview.' });
  out.push({ subresource: 'nodeclient', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' });
  return out;
}

/**
 * How long an issued certificate lives: the signing duration, or the request's expirationSeconds when shorter
 * (upstream: min of the two). Short lifetimes (under the 8h of upstream's policy) are not backdated, so a
 * rotation deadline at 70-90% of the lifetime lies ahead of the holder.
 */
export function certificateValidity(now: number, signingDurationMs: number, expirationSeconds: number | undefined, caNotAfter: number): { notBefore: number; notAfter: number } {
  const ttl = expirationSeconds !== undefined ? Math.min(signingDurationMs, expirationSeconds * 1000) : signingDurationMs;
  const backdate = ttl < 8 * 3_600_000 ? 0 : 5 * 60_000;
  const notBefore = now - backdate;
  return { notBefore, notAfter: Math.min(notBefore + ttl, caNotAfter) };
}

const HOUR = 3_600_000;
/** upstream cleaner's ages: approved, denied and failed requests an hour, pending ones a day. */
export const CLEANER = { pollMs: HOUR, approvedMs: HOUR, deniedMs: HOUR, failedMs: HOUR, pendingMs: 24 * HOUR };

const conditionTime = (c: Csr, type: string) => {
  const x = (c.status?.conditions ?? []).find((k) => k.type === type);
  const t = x?.lastUpdateTime ?? x?.lastTransitionTime;
  return t ? Date.parse(t) : undefined;
};

/** Why the cleaner deletes a request now, or null to keep it. `certNotAfter`: the issued certificate's expiry. */
export function cleanupReason(c: Csr, now: number, certNotAfter?: number): string | null {
  const older = (t: number | undefined, ms: number) => t !== undefined && now - t > ms;
  if (certNotAfter !== undefined && certNotAfter < now) return 'issued certificate has expired';
  if (isApproved(c) && older(conditionTime(c, 'Approved'), CLEANER.approvedMs)) return 'approved more than an hour ago';
  if (isDenied(c) && older(conditionTime(c, 'Denied'), CLEANER.deniedMs)) return 'denied more than an hour ago';
  if (isFailed(c) && older(conditionTime(c, 'Failed'), CLEANER.failedMs)) return 'failed more than an hour ago';
  if (!isApproved(c) && !isDenied(c) && !isFailed(c) && older(c.metadata.creationTimestamp ? Date.parse(c.metadata.creationTimestamp) : undefined, CLEANER.pendingMs)) return 'pending for more than a day';
  return null;
}

/** When a bootstrap token Secret expires (its `expiration`, base64 in data), or undefined for never. */
export function bootstrapTokenExpiry(data: Record<string, string> | undefined): number | undefined {
  const raw = data?.expiration;
  if (!raw) return undefined;
  const t = Date.parse(Buffer.from(raw, 'base64').toString('utf8'));
  return Number.isNaN(t) ? undefined : t;
}
