import { decodeDocument } from '../decode/document';
import { ValidationError } from '../field';
import { apiserverScheme } from '../kinds/scheme';
import { APISERVER_CONFIG_GROUP } from '../types/meta';
import type { TracingConfiguration } from '../types/tracing';
import { validateTracingConfiguration } from '../validation/tracing';
import { decodeOrFail, fail, internalTypeName, readConfigFile } from './common';

const wrap = (m: string) => `unable to decode tracing configuration data: ${m}`;

/** Tracing decodes *into* its type: an empty file is `{}`, apiVersion/kind may be left out. */
export function decodeTracingConfiguration(text: string): TracingConfiguration {
  const doc = decodeOrFail(
    () =>
      decodeDocument(text, apiserverScheme, {
        defaultKind: { apiVersion: `${APISERVER_CONFIG_GROUP}/v1beta1`, kind: 'TracingConfiguration' },
      }),
    wrap,
  );
  if (doc.registration.kind !== 'TracingConfiguration') {
    fail(wrap(`expected TracingConfiguration, got ${internalTypeName(doc.registration.kind)}`));
  }
  return doc.object as TracingConfiguration;
}

export function loadTracingConfiguration(text: string): TracingConfiguration {
  const c = decodeTracingConfiguration(text);
  const errs = validateTracingConfiguration(c);
  if (errs.length) throw new ValidationError(errs);
  return c;
}

export function loadTracingConfigurationFile(path: string): TracingConfiguration {
  if (!path) fail('tracing config file was empty');
  const r = readConfigFile(path);
  if ('error' in r) fail(`unable to read tracing configuration from ${JSON.stringify(path)}: ${r.error}`);
  return loadTracingConfiguration(r.text);
}
