import { decodeDocument, splitApiVersion } from '../decode/document';
import { ValidationError } from '../field';
import { apiserverScheme } from '../kinds/scheme';
import type { EgressSelectorConfiguration } from '../types/egress';
import { validateEgressSelectorConfiguration } from '../validation/egress';
import { decodeOrFail, fail, readConfigFile } from './common';

/** Strict decode; `master` becomes `controlplane` and `store` becomes `etcd`. */
export function decodeEgressSelectorConfiguration(text: string): EgressSelectorConfiguration {
  const doc = decodeOrFail(() => decodeDocument(text, apiserverScheme));
  if (doc.registration.kind !== 'EgressSelectorConfiguration') {
    const { group, version } = splitApiVersion(doc.registration.apiVersion);
    fail(`unexpected config type: ${group}/${version}, Kind=${doc.registration.kind}`);
  }
  return doc.object as EgressSelectorConfiguration;
}

export function loadEgressSelectorConfiguration(text: string): EgressSelectorConfiguration {
  const c = decodeEgressSelectorConfiguration(text);
  const errs = validateEgressSelectorConfiguration(c);
  if (errs.length) throw new ValidationError(errs);
  return c;
}

export function loadEgressSelectorConfigurationFile(path: string): EgressSelectorConfiguration {
  const r = readConfigFile(path);
  if ('error' in r) fail(`unable to read egress selector configuration from ${JSON.stringify(path)} [${r.error}]`);
  return loadEgressSelectorConfiguration(r.text);
}
