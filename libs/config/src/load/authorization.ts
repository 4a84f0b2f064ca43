import { decodeDocument } from '../decode/document';
import { ValidationError } from '../field';
import { apiserverScheme } from '../kinds/scheme';
import type { AuthorizationConfiguration } from '../types/authorization';
import { validateAuthorizationConfiguration, type AuthorizationValidationOptions } from '../validation/authorization';
import { decodeOrFail, fail, internalTypeName, readConfigFile } from './common';

/** Strict decode with defaults (webhook cache TTLs). Empty input is an empty config, as upstream. */
export function decodeAuthorizationConfiguration(text: string): AuthorizationConfiguration {
  if (text.length === 0) return { authorizers: [] };
  const doc = decodeOrFail(() => decodeDocument(text, apiserverScheme));
  if (doc.registration.kind !== 'AuthorizationConfiguration') {
    fail(`expected AuthorizationConfiguration, got ${internalTypeName(doc.registration.kind)}`);
  }
  return doc.object as AuthorizationConfiguration;
}

/**
 * kube-apiserver's extra rules: a non-webhook authorizer is named after its type, lower-cased; and a webhook
 * reaches its server through a kubeconfig file, because InClusterConfig (documented as not allowed for
 * kube-apiserver) has no in-cluster identity to use there. Refused here so `cl-config validate` and the API
 * server's start say the same.
 */
export function kubeApiserverAuthorizerErrors(c: AuthorizationConfiguration): string[] {
  const errs: string[] = [];
  (c.authorizers ?? []).forEach((a, i) => {
    if (a.type !== 'Webhook' && a.name !== a.type.toLowerCase()) errs.push(`expected name ${a.type.toLowerCase()} for authorizer ${a.type} instead of ${a.name}`);
    if (a.type === 'Webhook' && a.webhook?.connectionInfo?.type === 'InClusterConfig') {
      errs.push(`authorizers[${i}].connectionInfo.type: Invalid value: "InClusterConfig": not allowed for the API server, which has no in-cluster identity; use KubeConfigFile`);
    }
  });
  return errs;
}

export function loadAuthorizationConfiguration(
  text: string,
  opts: AuthorizationValidationOptions = {},
): AuthorizationConfiguration {
  const c = decodeAuthorizationConfiguration(text);
  const errs = validateAuthorizationConfiguration(c, opts);
  if (errs.length) throw new ValidationError(errs);
  const kube = kubeApiserverAuthorizerErrors(c);
  if (kube.length) throw new ValidationError(kube.map((m) => new Error(m)));
  return c;
}

export function loadAuthorizationConfigurationFile(
  path: string,
  opts: AuthorizationValidationOptions = {},
): AuthorizationConfiguration {
  const r = readConfigFile(path);
  if ('error' in r) fail(r.error);
  return loadAuthorizationConfiguration(r.text, opts);
}
