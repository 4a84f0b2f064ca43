// AuthorizationConfiguration (apiserver.config.k8s.io/v1alpha1, v1beta1 and v1), field names as upstream.
import type { CelProgram } from '@cl/cel';
import type { DurationMs, TypeMeta } from './meta';

export interface AuthorizationConfiguration extends TypeMeta {
  authorizers: AuthorizerConfiguration[];
}

export type AuthorizerType = 'Webhook' | 'AlwaysAllow' | 'AlwaysDeny' | 'ABAC' | 'RBAC' | 'Node' | (string & {});

export interface AuthorizerConfiguration {
  type: AuthorizerType;
  /** DNS-1123 subdomain, unique; used in metrics. */
  name: string;
  /** Required when type is Webhook, forbidden otherwise. */
  webhook?: WebhookConfiguration;
}

export type FailurePolicy = 'NoOpinion' | 'Deny' | (string & {});
export type WebhookConnectionType = 'KubeConfigFile' | 'InClusterConfig' | (string & {});

export interface WebhookConfiguration {
  /** Milliseconds; defaulted to 5m (300000) when decoded from a file. */
  authorizedTTL: DurationMs;
  /** Milliseconds; defaulted to 30s (30000) when decoded from a file. */
  unauthorizedTTL: DurationMs;
  /** Milliseconds, > 0 and <= 30s. */
  timeout: DurationMs;
  subjectAccessReviewVersion: 'v1' | 'v1beta1' | (string & {});
  matchConditionSubjectAccessReviewVersion?: 'v1' | (string & {});
  failurePolicy: FailurePolicy;
  connectionInfo: WebhookConnectionInfo;
  matchConditions?: WebhookMatchCondition[];
}

export interface WebhookConnectionInfo {
  type: WebhookConnectionType;
  /** Absolute path; required for KubeConfigFile, forbidden (even "") otherwise. */
  kubeConfigFile?: string;
}

/** After validation, `compiled` (non-enumerable) holds the bool program over `request`. */
export interface WebhookMatchCondition {
  expression: string;
  readonly compiled?: CelProgram<boolean>;
}
