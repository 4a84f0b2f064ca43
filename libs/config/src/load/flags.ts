// The flag-versus-file rules kube-apiserver applies before it loads the configuration files.
import { existsSync } from 'node:fs';
import { decodeAuthenticationConfiguration } from './authentication';
import { readConfigFile } from './common';

export interface ApiserverConfigFlags {
  /** `--authentication-config` */
  authenticationConfig?: string;
  /** `--anonymous-auth` given explicitly on the command line. */
  anonymousAuthFlagSet?: boolean;
  /** Any `--oidc-*` flag given explicitly. */
  oidcFlagsSet?: boolean;
  oidcIssuerURL?: string;
  oidcClientID?: string;
  /** `--authorization-config` */
  authorizationConfig?: string;
  /** `--authorization-mode` given explicitly. */
  authorizationModeFlagSet?: boolean;
  /** Any `--authorization-webhook-*` flag given explicitly. */
  authorizationWebhookFlagsSet?: boolean;
  /** `--egress-selector-config-file` */
  egressSelectorConfigFile?: string;
  /** `--tracing-config-file` */
  tracingConfigFile?: string;
  /** `--admission-control-config-file` */
  admissionControlConfigFile?: string;
  featureGates?: {
    StructuredAuthenticationConfiguration?: boolean;
    StructuredAuthorizationConfiguration?: boolean;
    APIServerTracing?: boolean;
  };
}

/** Every flag-versus-file problem, in upstream wording; empty when the combination is allowed. */
export function validateApiserverConfigFlags(f: ApiserverConfigFlags): string[] {
  const errs: string[] = [];
  const gates = f.featureGates ?? {};
  if (f.authenticationConfig) {
    if (gates.StructuredAuthenticationConfiguration === false) {
      errs.push('set --feature-gates=StructuredAuthenticationConfiguration=true to use authentication-config file');
    }
    if (f.oidcFlagsSet) errs.push('authentication-config file and oidc-* flags are mutually exclusive');
    if (f.anonymousAuthFlagSet && authenticationFileHasAnonymous(f.authenticationConfig)) {
      errs.push(
        'anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file',
      );
    }
  } else if (f.oidcFlagsSet && (!f.oidcIssuerURL || !f.oidcClientID)) {
    errs.push('oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set');
  }
  if (f.authorizationConfig) {
    if (gates.StructuredAuthorizationConfiguration === false) {
      errs.push('--authorization-config cannot be used without enabling StructuredAuthorizationConfiguration feature flag');
    }
    if (f.authorizationModeFlagSet || f.authorizationWebhookFlagsSet) {
      errs.push('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
    }
  }
  if (f.egressSelectorConfigFile && !existsSync(f.egressSelectorConfigFile)) {
    errs.push(`egress-selector-config-file ${f.egressSelectorConfigFile} does not exist`);
  }
  if (f.tracingConfigFile) {
    if (!existsSync(f.tracingConfigFile)) errs.push(`tracing-config-file ${f.tracingConfigFile} does not exist`);
    if (gates.APIServerTracing === false) errs.push('APIServerTracing feature is not enabled, but tracing config file was provided');
  }
  if (f.admissionControlConfigFile && !existsSync(f.admissionControlConfigFile)) {
    errs.push(
      `unable to read admission control configuration from ${JSON.stringify(f.admissionControlConfigFile)} [open ${f.admissionControlConfigFile}: no such file or directory]`,
    );
  }
  return errs;
}

/** Decode errors are left to the loader, which reports them with the rest. */
function authenticationFileHasAnonymous(path: string): boolean {
  const r = readConfigFile(path);
  if ('error' in r) return false;
  try {
    return decodeAuthenticationConfiguration(r.text).anonymous !== undefined;
  } catch {
    return false;
  }
}
