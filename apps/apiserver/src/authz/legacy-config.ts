// `--authorization-mode` and the `--authorization-webhook-*` flags as the AuthorizationConfiguration upstream
// builds from them (kube pkg/kubeapiserver/options/authorization.go): the webhook is named `default`, waits
// 30s and has no opinion when it fails; other modes are named after themselves in lower case.
import type { AuthorizationConfiguration } from '@cl/config';
import { effectiveModes, type AuthorizationOptions } from './flags';

export function legacyAuthorizationConfig(o: AuthorizationOptions): AuthorizationConfiguration {
  return {
    authorizers: effectiveModes(o).map((mode) =>
      mode === 'Webhook'
        ? {
            type: 'Webhook',
            name: 'default',
            webhook: {
              authorizedTTL: o.authorizationWebhookCacheAuthorizedTtlMs,
              unauthorizedTTL: o.authorizationWebhookCacheUnauthorizedTtlMs,
              timeout: 30_000,
              subjectAccessReviewVersion: o.authorizationWebhookVersion,
              matchConditionSubjectAccessReviewVersion: 'v1',
              failurePolicy: 'NoOpinion',
              connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: o.authorizationWebhookConfigFile },
            },
          }
        : { type: mode, name: mode.toLowerCase() },
    ),
  };
}
