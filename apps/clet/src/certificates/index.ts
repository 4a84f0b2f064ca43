// The node's certificates from the cluster: TLS bootstrap, client and serving certificate rotation.
export { bootstrapClientCertificate, startClientRotation, startServingCertificates, CLIENT_PREFIX, SERVER_PREFIX } from './node-certificates';
export { rotationDeadline, CertificateRotator } from './rotation';
export { CertificateFileStore, splitPair } from './cert-store';
