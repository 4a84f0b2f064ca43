// EgressSelectorConfiguration (apiserver.k8s.io/v1alpha1 and v1beta1), field names as upstream.
import type { TypeMeta } from './meta';

export interface EgressSelectorConfiguration extends TypeMeta {
  egressSelections: EgressSelection[];
}

/**
 * `controlplane`, `cluster` or `etcd`. Decoding rewrites `master` to `controlplane`; this project also accepts
 * the spec's name `store` and decodes it to `etcd` (the same selection).
 */
export type EgressSelectionName = 'controlplane' | 'cluster' | 'etcd' | (string & {});

export interface EgressSelection {
  name: EgressSelectionName;
  connection: Connection;
}

export type ProtocolType = 'Direct' | 'HTTPConnect' | 'GRPC' | (string & {});

export interface Connection {
  proxyProtocol: ProtocolType;
  /** Required for HTTPConnect and GRPC, absent for Direct. */
  transport?: Transport;
}

export interface Transport {
  tcp?: TCPTransport;
  uds?: UDSTransport;
}

export interface TCPTransport {
  /** `http://host:port` or `https://host:port`. */
  url: string;
  tlsConfig?: TLSConfig;
}

/** File paths. */
export interface TLSConfig {
  caBundle?: string;
  clientKey?: string;
  clientCert?: string;
}

export interface UDSTransport {
  /** Socket path without `unix://`. */
  udsName: string;
}
