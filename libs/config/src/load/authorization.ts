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

/** kube-apiserver's extra rule: a non-webhook authorizer is named after its type, lower-cased. */
export function kubeApiserverAuthorizerErrors(c: AuthorizationConfiguration): string[] {
  return (c.authorizers ?? [])
    .filter((a) => a.type !== 'Webhook' && a.name !== a.type.toLowerCase())
    .map((a) => `expected name ${a.type.toLowerCase()} for authorizer ${a.type} instead of ${a.name}`);
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
