export type { AuthorizationResult, AuthorizeOptions, ChainAuthorizer, Logger } from './types';
export { AuthorizerChain, SUPPORTED_AUTHORIZER_TYPES, type AuthorizerChainOptions, type BuiltinAuthorizerFactory } from './chain';
export { ReloadingAuthorizer, apiServerIdHash, type ReloadingAuthorizerOptions } from './reload';
export {
  unionAuthorizer,
  instrumentedAuthorizer,
  alwaysAllowAuthorizer,
  alwaysDenyAuthorizer,
  privilegedGroupsAuthorizer,
} from './union';
export { WebhookAuthorizer, type WebhookAuthorizerOptions } from './webhook-authorizer';
export {
  SubjectAccessReviewClient,
  WebhookRequestError,
  DEFAULT_BACKOFF,
  type AgentFactory,
  type Backoff,
} from './webhook-client';
export { loadWebhookKubeconfig, KubeconfigError, type WebhookConnection } from './kubeconfig';
export { MatchConditions, type MatchConditionInput, type MatchOutcome } from './match-conditions';
export {
  specFromAttributes,
  attributesFromSpec,
  nonResourceAttributes,
  cacheKeyOf,
  encodeReviewRequest,
  decodeReviewResponse,
  ReviewDecodeError,
  SAR_GROUP,
  type SubjectAccessReviewSpec,
  type SubjectAccessReviewStatus,
  type SubjectAccessReviewVersion,
  type ResourceAttributesJson,
  type NonResourceAttributesJson,
  type SelectorJson,
  type SelectorRequirementJson,
} from './sar';
export { goJsonMarshal } from './go-json';
export { forbiddenMessage, forbiddenStatus, authorizationErrorText, type ForbiddenStatus } from './responses';
export { authorizationMiddleware, type MiddlewareOptions } from './express';
export { authorizationMetrics, type WebhookResult } from './metrics';
