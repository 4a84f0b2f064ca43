export { createCA, issueClientCert, issueServingCert, certificateSubject } from './certs';
export type { PemPair, CertOptions } from './certs';
export { generateSelfSignedServing } from './self-signed';
export type { SelfSignedOptions, CertFiles } from './self-signed';
export { parseCertificateRequest } from './certificate-request';
export type { ParsedCertificateRequest } from './certificate-request';
