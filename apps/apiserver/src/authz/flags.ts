// kube-apiserver's authorization flags: `--authorization-config`, or the older `--authorization-mode` with the
// `--authorization-webhook-*` flags (mutually exclusive), validated as upstream's BuiltInAuthorizationOptions.
import { loadAuthorizationConfigurationFile, validateApiserverConfigFlags, ValidationError } from '@cl/config';
import { types, type FlagSet } from '@cl/flags';
import { SERVER_AUTHORIZER_TYPES } from './authorizer-types';

export interface AuthorizationOptions {
  authorizationConfig: string;
  /** Empty means AlwaysAllow when no config file is given (upstream's default). */
  authorizationModes: string[];
  authorizationWebhookConfigFile: string;
  authorizationWebhookVersion: string;
  authorizationWebhookCacheAuthorizedTtlMs: number;
  authorizationWebhookCacheUnauthorizedTtlMs: number;
}

const SECTION = 'Authorization flags';
const KUBE_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'];
const WEBHOOK_FLAGS = [
  'authorization-webhook-config-file',
  'authorization-webhook-version',
  'authorization-webhook-cache-authorized-ttl',
  'authorization-webhook-cache-unauthorized-ttl',
];

export function addAuthorizationFlags(fs: FlagSet): void {
  fs.add({ name: 'authorization-config', type: types.string, default: '', section: SECTION, usage: 'File with Authorization Configuration to configure the authorizer chain. Requires feature flag StructuredAuthorizationConfiguration. This flag is mutually exclusive with the other --authorization-mode and --authorization-webhook-* flags.' })
    .add({ name: 'authorization-mode', type: types.stringSlice, default: [], section: SECTION, usage: `Ordered list of plug-ins to do authorization on secure port. Defaults to AlwaysAllow if --authorization-config is not used. Comma-delimited list of: ${SERVER_AUTHORIZER_TYPES.join(',')}.` })
    .add({ name: 'authorization-webhook-cache-authorized-ttl', type: types.duration, default: 300_000, section: SECTION, usage: "The duration to cache 'authorized' responses from the webhook authorizer." })
    .add({ name: 'authorization-webhook-cache-unauthorized-ttl', type: types.duration, default: 30_000, section: SECTION, usage: "The duration to cache 'unauthorized' responses from the webhook authorizer." })
    .add({ name: 'authorization-webhook-config-file', type: types.string, default: '', section: SECTION, usage: "File with webhook configuration in kubeconfig format, used with --authorization-mode=Webhook. The API server will query the remote service to determine access on the API server's secure port." })
    .add({ name: 'authorization-webhook-version', type: types.string, default: 'v1beta1', section: SECTION, usage: 'The API version of the authorization.k8s.io SubjectAccessReview to send to and expect from the webhook.' });
}

export function authorizationOptions(values: Record<string, unknown>): AuthorizationOptions {
  return {
    authorizationConfig: values['authorization-config'] as string,
    authorizationModes: values['authorization-mode'] as string[],
    authorizationWebhookConfigFile: values['authorization-webhook-config-file'] as string,
    authorizationWebhookVersion: values['authorization-webhook-version'] as string,
    authorizationWebhookCacheAuthorizedTtlMs: values['authorization-webhook-cache-authorized-ttl'] as number,
    authorizationWebhookCacheUnauthorizedTtlMs: values['authorization-webhook-cache-unauthorized-ttl'] as number,
  };
}

/** The modes in force: the flag's, or AlwaysAllow when neither form is used. */
export function effectiveModes(o: AuthorizationOptions): string[] {
  return o.authorizationModes.length > 0 ? o.authorizationModes : ['AlwaysAllow'];
}

/** Every authorization flag problem at once (upstream wording), including a bad --authorization-config file. */
export function validateAuthorizationOptions(o: AuthorizationOptions, explicit: ReadonlySet<string>): string[] {
  if (o.authorizationConfig) {
    const errs = validateApiserverConfigFlags({
      authorizationConfig: o.authorizationConfig,
      authorizationModeFlagSet: explicit.has('authorization-mode'),
      authorizationWebhookFlagsSet: WEBHOOK_FLAGS.some((f) => explicit.has(f)),
    });
    if (errs.length > 0) return errs;
    try {
      loadAuthorizationConfigurationFile(o.authorizationConfig, { knownTypes: SERVER_AUTHORIZER_TYPES });
      return [];
    } catch (e) {
      if (e instanceof ValidationError) return e.errors.map((x) => `${o.authorizationConfig}: ${x.message}`);
      return [(e as Error).message];
    }
  }
  const errs: string[] = [];
  const modes = explicit.has('authorization-mode') ? o.authorizationModes : effectiveModes(o);
  if (modes.length === 0) errs.push('at least one authorization-mode must be passed');
  for (const m of modes) {
    if (!KUBE_MODES.includes(m)) errs.push(`authorization-mode ${JSON.stringify(m)} is not a valid mode`);
    else if (!(SERVER_AUTHORIZER_TYPES as readonly string[]).includes(m)) {
      errs.push(`authorization-mode ${JSON.stringify(m)} is not supported by this server (supported: ${SERVER_AUTHORIZER_TYPES.join(', ')})`);
    }
    if (m === 'Webhook' && !o.authorizationWebhookConfigFile) errs.push("authorization-mode Webhook's authorization config file not passed");
  }
  if (o.authorizationWebhookConfigFile && !modes.includes('Webhook')) {
    errs.push('cannot specify --authorization-webhook-config-file without mode Webhook');
  }
  if (new Set(modes).size !== modes.length) errs.push(`authorization-mode [${modes.join(' ')}] has mode specified more than once`);
  if (!['v1', 'v1beta1'].includes(o.authorizationWebhookVersion)) {
    errs.push(`--authorization-webhook-version: Unsupported value: ${JSON.stringify(o.authorizationWebhookVersion)}: supported values: "v1", "v1beta1"`);
  }
  if (o.authorizationWebhookCacheAuthorizedTtlMs < 0) errs.push('--authorization-webhook-cache-authorized-ttl must not be negative');
  if (o.authorizationWebhookCacheUnauthorizedTtlMs < 0) errs.push('--authorization-webhook-cache-unauthorized-ttl must not be negative');
  return errs;
}
