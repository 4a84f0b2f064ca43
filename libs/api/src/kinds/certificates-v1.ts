// certificates.k8s.io/v1 types shared by the CertificateSigningRequest registry (@cl/registry, which defines the
// kind and its strategies) and the certificate controllers (@cl/controllers), so both read one condition shape.

/** One condition of a CertificateSigningRequest's status (Approved, Denied, Failed, or a signer's own type). */
export interface CsrCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string | null;
  lastTransitionTime?: string | null;
}
