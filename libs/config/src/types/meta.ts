// API groups and versions the configuration documents are served under (Kubernetes 1.33 registrations).

export const APISERVER_CONFIG_GROUP = 'apiserver.config.k8s.io';
export const APISERVER_LEGACY_GROUP = 'apiserver.k8s.io';

export interface TypeMeta {
  apiVersion?: string;
  kind?: string;
}

/**
 * Durations are Go duration strings in files (`5m0s`, `30s`); decoded documents carry them as milliseconds
 * (a number), the same way `@cl/flags` does. `formatDuration` from `@cl/flags` prints them back.
 */
export type DurationMs = number;
