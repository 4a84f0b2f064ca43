// AuthenticationConfiguration (apiserver.config.k8s.io/v1alpha1 and v1beta1), field names as upstream.
import type { CelProgram } from '@cl/cel';
import type { TypeMeta } from './meta';

export interface AuthenticationConfiguration extends TypeMeta {
  /** JWT authenticators, tried in order. May be empty. */
  jwt?: JWTAuthenticator[];
  /** When present, `--anonymous-auth` must not be set. */
  anonymous?: AnonymousAuthConfig;
}

export interface JWTAuthenticator {
  issuer: Issuer;
  claimValidationRules?: ClaimValidationRule[];
  claimMappings: ClaimMappings;
  userValidationRules?: UserValidationRule[];
}

export type AudienceMatchPolicyType = '' | 'MatchAny' | (string & {});

export interface Issuer {
  url: string;
  /** Empty or absent: `{url}/.well-known/openid-configuration`. */
  discoveryURL?: string;
  /** PEM CA bundle (contents, not a path). */
  certificateAuthority?: string;
  audiences: string[];
  audienceMatchPolicy?: AudienceMatchPolicyType;
}

/**
 * Either `claim` (+ `requiredValue`) or `expression` (+ `message`).
 * After validation, `compiled` (non-enumerable) holds the bool program of `expression`.
 */
export interface ClaimValidationRule {
  claim?: string;
  requiredValue?: string;
  expression?: string;
  message?: string;
  readonly compiled?: CelProgram<boolean>;
}

export interface ClaimMappings {
  username: PrefixedClaimOrExpression;
  groups?: PrefixedClaimOrExpression;
  uid?: ClaimOrExpression;
  extra?: ExtraMapping[];
}

/** `prefix` undefined (absent or null) means "not set"; `""` means "set, no prefix". */
export interface PrefixedClaimOrExpression {
  claim?: string;
  prefix?: string;
  expression?: string;
  /** Program of `expression` (any result type), set by validation. */
  readonly compiled?: CelProgram;
}

export interface ClaimOrExpression {
  claim?: string;
  expression?: string;
  readonly compiled?: CelProgram;
}

export interface ExtraMapping {
  key: string;
  valueExpression: string;
  readonly compiled?: CelProgram;
}

export interface UserValidationRule {
  expression: string;
  message?: string;
  readonly compiled?: CelProgram<boolean>;
}

export interface AnonymousAuthConfig {
  enabled: boolean;
  conditions?: AnonymousAuthCondition[];
}

export interface AnonymousAuthCondition {
  path: string;
}
