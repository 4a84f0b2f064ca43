// `loadConfigFile`: reads apiVersion/kind and hands the file to the loader of that kind.
import { DecodeError, parseSource, readTypeMeta } from '../decode/document';
import type { AdmissionConfiguration } from '../types/admission';
import type { AuthenticationConfiguration } from '../types/authentication';
import type { AuthorizationConfiguration } from '../types/authorization';
import type { EgressSelectorConfiguration } from '../types/egress';
import type { TracingConfiguration } from '../types/tracing';
import type { AuthenticationValidationOptions } from '../validation/authentication';
import type { AuthorizationValidationOptions } from '../validation/authorization';
import { loadAdmissionConfiguration } from './admission';
import { loadAuthenticationConfiguration } from './authentication';
import { loadAuthorizationConfiguration } from './authorization';
import { fail, readConfigFile } from './common';
import { loadEgressSelectorConfiguration } from './egress';
import { loadTracingConfiguration } from './tracing';

export type LoadedConfig =
  | { kind: 'AuthenticationConfiguration'; config: AuthenticationConfiguration }
  | { kind: 'AuthorizationConfiguration'; config: AuthorizationConfiguration }
  | { kind: 'EgressSelectorConfiguration'; config: EgressSelectorConfiguration }
  | { kind: 'TracingConfiguration'; config: TracingConfiguration }
  | { kind: 'AdmissionConfiguration'; config: AdmissionConfiguration };

export interface LoadConfigOptions {
  authentication?: AuthenticationValidationOptions;
  authorization?: AuthorizationValidationOptions;
}

export const CONFIG_KINDS = [
  'AuthenticationConfiguration',
  'AuthorizationConfiguration',
  'EgressSelectorConfiguration',
  'TracingConfiguration',
  'AdmissionConfiguration',
] as const;

/** Loads any of the five kinds, chosen by the document's `kind`. Throws ValidationError. */
export function loadConfigFile(path: string, opts: LoadConfigOptions = {}): LoadedConfig {
  const r = readConfigFile(path);
  if ('error' in r) fail(r.error);
  return loadConfig(r.text, { ...opts, path });
}

export function loadConfig(text: string, opts: LoadConfigOptions & { path?: string } = {}): LoadedConfig {
  let kind = '';
  try {
    kind = readTypeMeta(parseSource(text).root).kind;
  } catch (e) {
    if (e instanceof DecodeError) fail(e.message);
    throw e;
  }
  switch (kind) {
    case 'AuthenticationConfiguration':
      return { kind, config: loadAuthenticationConfiguration(text, opts.authentication) };
    case 'AuthorizationConfiguration':
      return { kind, config: loadAuthorizationConfiguration(text, opts.authorization) };
    case 'EgressSelectorConfiguration':
      return { kind, config: loadEgressSelectorConfiguration(text) };
    case 'TracingConfiguration':
      return { kind, config: loadTracingConfiguration(text) };
    case 'AdmissionConfiguration':
      return { kind, config: loadAdmissionConfiguration(text, { path: opts.path }) };
    case '':
      return fail(`Object 'Kind' is missing in '${text}'`);
    default:
      return fail(`unsupported kind ${JSON.stringify(kind)}: expected one of ${CONFIG_KINDS.join(', ')}`);
  }
}
