// CredentialProviderConfig (--image-credential-provider-config): read, decoded and validated as upstream's
// registerCredentialProviderPlugins does, with its messages, before the agent starts anything.
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseDuration } from '@cl/flags';
import { parseSchemelessURL } from './match-images';

/** The config file's group; upstream accepts its v1, v1beta1 and v1alpha1. */
const CONFIG_VERSIONS = ['kubelet.config.k8s.io/v1', 'kubelet.config.k8s.io/v1beta1', 'kubelet.config.k8s.io/v1alpha1'];
/** The exec protocol's versions a provider may speak (sorted, as upstream lists them). */
export const PROVIDER_API_VERSIONS = [
  'credentialprovider.kubelet.k8s.io/v1',
  'credentialprovider.kubelet.k8s.io/v1alpha1',
  'credentialprovider.kubelet.k8s.io/v1beta1',
];

export interface CredentialProvider {
  name: string;
  matchImages: string[];
  /** Milliseconds; undefined when the file leaves it out (an error). */
  defaultCacheDurationMs?: number;
  defaultCacheDuration?: string;
  apiVersion: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
  tokenAttributes?: unknown;
}

export interface CredentialProviderPlugins {
  providers: CredentialProvider[];
  /** Each provider's executable, by name. */
  binaries: Map<string, string>;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

function decode(path: string, text: string): CredentialProvider[] {
  let doc: Record<string, unknown>;
  try {
    doc = (parseYaml(text) ?? {}) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`error decoding config ${path}: ${(e as Error).message}`);
  }
  const apiVersion = str(doc.apiVersion);
  const kind = str(doc.kind);
  if (kind === '' || apiVersion === '') throw new Error(`error decoding config ${path}: Object 'Kind' is missing in '${text.trim()}'`);
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  if (kind !== 'CredentialProviderConfig') throw new Error(`error decoding config ${path}: failed to decode ${JSON.stringify(kind)} (wrong Kind)`);
  if (group !== 'kubelet.config.k8s.io') {
    throw new Error(`error decoding config ${path}: failed to decode CredentialProviderConfig, unexpected Group: ${group}`);
  }
  if (!CONFIG_VERSIONS.includes(apiVersion)) {
    throw new Error(`error decoding config ${path}: no kind "CredentialProviderConfig" is registered for version "${apiVersion}"`);
  }
  const providers = Array.isArray(doc.providers) ? (doc.providers as Array<Record<string, unknown>>) : [];
  return providers.map((p) => {
    const cache = p.defaultCacheDuration;
    let defaultCacheDurationMs: number | undefined;
    if (cache !== undefined && cache !== null) {
      try {
        defaultCacheDurationMs = parseDuration(String(cache));
      } catch (e) {
        throw new Error(`error decoding config ${path}: ${(e as Error).message}`);
      }
    }
    return {
      name: str(p.name),
      matchImages: strs(p.matchImages),
      defaultCacheDurationMs,
      defaultCacheDuration: cache === undefined || cache === null ? undefined : String(cache),
      apiVersion: str(p.apiVersion),
      args: strs(p.args),
      env: Array.isArray(p.env) ? (p.env as Array<Record<string, unknown>>).map((e) => ({ name: str(e.name), value: str(e.value) })) : [],
      tokenAttributes: p.tokenAttributes ?? undefined,
    };
  });
}

/** validateCredentialProviderConfig: every field error, as field.ErrorList prints them. */
export function validateProviders(providers: CredentialProvider[]): string[] {
  const errs: string[] = [];
  const path = 'providers';
  if (providers.length === 0) errs.push(`${path}: Required value: at least 1 item in plugins is required`);
  const seen = new Set<string>();
  for (const p of providers) {
    const name = JSON.stringify(p.name);
    if (p.name.includes('/')) errs.push(`${path}.name: Invalid value: ${name}: provider name cannot contain '/'`);
    if (p.name.includes(' ')) errs.push(`${path}.name: Invalid value: ${name}: provider name cannot contain spaces`);
    if (p.name === '.') errs.push(`${path}.name: Invalid value: ${name}: provider name cannot be '.'`);
    if (p.name === '..') errs.push(`${path}.name: Invalid value: ${name}: provider name cannot be '..'`);
    if (seen.has(p.name)) errs.push(`${path}.name: Duplicate value: ${name}`);
    seen.add(p.name);
    if (p.apiVersion === '') errs.push(`${path}.apiVersion: Required value`);
    else if (!PROVIDER_API_VERSIONS.includes(p.apiVersion)) {
      errs.push(`${path}.apiVersion: Unsupported value: ${JSON.stringify(p.apiVersion)}: supported values: ${PROVIDER_API_VERSIONS.map((v) => JSON.stringify(v)).join(', ')}`);
    }
    if (p.matchImages.length === 0) errs.push(`${path}.matchImages: Required value: at least 1 item in matchImages is required`);
    for (const m of p.matchImages) {
      try {
        parseSchemelessURL(m);
      } catch (e) {
        errs.push(`${path}.matchImages: Invalid value: ${JSON.stringify(m)}: match image is invalid: ${(e as Error).message}`);
      }
    }
    if (p.defaultCacheDurationMs === undefined) errs.push(`${path}.defaultCacheDuration: Required value`);
    else if (p.defaultCacheDurationMs < 0) errs.push(`${path}.defaultCacheDuration: Invalid value: ${p.defaultCacheDuration}: must be greater than or equal to 0`);
    // The service-account-token mode needs a feature gate this agent's spec does not list.
    if (p.tokenAttributes !== undefined) {
      errs.push(`${path}.tokenAttributes: Forbidden: tokenAttributes is not supported when KubeletServiceAccountTokenForCredentialProviders feature gate is disabled`);
    }
  }
  return errs;
}

const aggregate = (errs: string[]) => (errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);

/**
 * Reads, validates and finds the binaries of the plugins; throws upstream's first failing step's error.
 * Called only when either flag is set (upstream: a bin dir without a config is "config path is empty").
 */
export function loadCredentialProviderPlugins(configPath: string, binDir: string): CredentialProviderPlugins {
  if (configPath === '') throw new Error('credential provider config path is empty');
  let text: string;
  try {
    text = readFileSync(configPath, 'utf8');
  } catch (e) {
    throw new Error(`unable to read external registry credential provider configuration from ${JSON.stringify(configPath)}: ${(e as Error).message}`);
  }
  const providers = decode(configPath, text);
  const errs = validateProviders(providers);
  if (errs.length > 0) throw new Error(`failed to validate credential provider config: ${aggregate(errs)}`);
  const binaries = new Map<string, string>();
  for (const p of providers) {
    const bin = join(binDir, p.name);
    if (!isExecutableFile(bin)) throw new Error(`plugin binary executable ${bin} did not exist`);
    binaries.set(p.name, bin);
  }
  return { providers, binaries };
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
