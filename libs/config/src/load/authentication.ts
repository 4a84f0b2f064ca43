import { decodeDocument } from '../decode/document';
import { ValidationError } from '../field';
import { apiserverScheme } from '../kinds/scheme';
import type { AuthenticationConfiguration } from '../types/authentication';
import { validateAuthenticationConfiguration, type AuthenticationValidationOptions } from '../validation/authentication';
import { decodeOrFail, fail, internalTypeName, readConfigFile } from './common';

/** Strict decode of an AuthenticationConfiguration document (no validation). Throws ValidationError. */
export function decodeAuthenticationConfiguration(text: string): AuthenticationConfiguration {
  if (text.length === 0) fail('empty config data');
  const doc = decodeOrFail(() => decodeDocument(text, apiserverScheme));
  if (doc.registration.kind !== 'AuthenticationConfiguration') {
    fail(`expected AuthenticationConfiguration, got ${internalTypeName(doc.registration.kind)}`);
  }
  return doc.object as AuthenticationConfiguration;
}

/** Decode and validate; compiled CEL programs are attached (see README). Throws ValidationError. */
export function loadAuthenticationConfiguration(
  text: string,
  opts: AuthenticationValidationOptions = {},
): AuthenticationConfiguration {
  const c = decodeAuthenticationConfiguration(text);
  const errs = validateAuthenticationConfiguration(c, opts);
  if (errs.length) throw new ValidationError(errs);
  return c;
}

export function loadAuthenticationConfigurationFile(
  path: string,
  opts: AuthenticationValidationOptions = {},
): AuthenticationConfiguration {
  const r = readConfigFile(path);
  if ('error' in r) fail(r.error);
  return loadAuthenticationConfiguration(r.text, opts);
}
