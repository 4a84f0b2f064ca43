// AdmissionConfiguration (apiserver.k8s.io/v1alpha1 and apiserver.config.k8s.io/v1), field names as upstream.
import type { TypeMeta } from './meta';

export interface AdmissionConfiguration extends TypeMeta {
  plugins: AdmissionPluginConfiguration[];
}

export interface AdmissionPluginConfiguration {
  name: string;
  /** Plugin config file; relative paths are made absolute against the config file's folder on load. */
  path?: string;
  /** Embedded configuration of any kind; wins over `path`. Kept as decoded JSON, not checked. */
  configuration?: unknown;
}
