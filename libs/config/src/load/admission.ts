// AdmissionConfiguration: decode (its own scheme, no v1beta1), resolve relative plugin paths against the
// config file's folder, and resolve each plugin's configuration (embedded object wins over `path`).
import { dirname, isAbsolute, resolve } from 'node:path';
import { decodeDocument, DecodeError, parseSource } from '../decode/document';
import { nodeToSortedJson, type JNode } from '../decode/tree';
import { FieldPath, fieldErrors, ValidationError } from '../field';
import { admissionScheme } from '../kinds/scheme';
import type { AdmissionConfiguration } from '../types/admission';
import { fail, internalTypeName, readConfigFile } from './common';

export interface AdmissionLoadOptions {
  /** The file's path: relative plugin paths are resolved against its folder. */
  path?: string;
  /** Enabled plugin names, used only by the legacy (pre-AdmissionConfiguration) file format. */
  pluginNames?: readonly string[];
}

/** Raw JSON of each plugin's embedded configuration, keyed by the loaded object. */
const rawConfigurations = new WeakMap<AdmissionConfiguration, Array<string | undefined>>();

const LEGACY_PLUGINS: Record<string, string> = { imagePolicy: 'ImagePolicyWebhook', podNodeSelectorPluginConfig: 'PodNodeSelector' };

export function decodeAdmissionConfiguration(text: string, opts: AdmissionLoadOptions = {}): AdmissionConfiguration {
  let doc;
  try {
    doc = decodeDocument(text, admissionScheme);
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    if (e.reason === 'strict' || e.reason === 'other') fail(e.message);
    const legacy = legacyConfiguration(text, opts);
    if (legacy) return legacy;
    fail(e.message);
  }
  if (doc.registration.kind !== 'AdmissionConfiguration') fail(`unexpected type: ${internalTypeName(doc.registration.kind)}`);
  const c = doc.object as AdmissionConfiguration;
  const base = opts.path ? dirname(opts.path) : '.';
  const baseDir = base === '' || base === '.' ? process.cwd() : resolve(base);
  for (const p of c.plugins ?? []) if (p.path && !isAbsolute(p.path)) p.path = resolve(baseDir, p.path);
  rawConfigurations.set(c, rawPluginConfigurations(doc.root, doc.format, text));
  return c;
}

/** Files from before AdmissionConfiguration: a top-level `imagePolicy` / `podNodeSelectorPluginConfig` key. */
function legacyConfiguration(text: string, opts: AdmissionLoadOptions): AdmissionConfiguration | null {
  let root: JNode;
  try {
    root = parseSource(text).root;
  } catch {
    return null;
  }
  if (root.t !== 'object' || !root.entries.some(([k]) => k in LEGACY_PLUGINS)) return null;
  const wanted = new Set(Object.values(LEGACY_PLUGINS));
  const plugins = (opts.pluginNames ?? []).filter((n) => wanted.has(n)).map((name) => ({ name, path: opts.path ?? '' }));
  return { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins };
}

function rawPluginConfigurations(root: JNode, format: 'json' | 'yaml', text: string): Array<string | undefined> {
  if (root.t !== 'object') return [];
  let plugins: JNode | undefined;
  for (const [k, v] of root.entries) if (k === 'plugins') plugins = v;
  if (!plugins || plugins.t !== 'array') return [];
  return plugins.items.map((item) => {
    if (item.t !== 'object') return undefined;
    let cfg: JNode | undefined;
    for (const [k, v] of item.entries) if (k === 'configuration') cfg = v;
    if (!cfg || cfg.t === 'null') return undefined;
    // JSON input keeps the bytes as written; YAML input becomes compact JSON with sorted keys
    return format === 'json' && cfg.span ? text.slice(cfg.span[0], cfg.span[1]) : nodeToSortedJson(cfg);
  });
}

/**
 * The configuration a plugin gets (upstream ConfigFor): the first entry with that name wins; its embedded
 * object as JSON text, else the contents of `path`, else null. Throws when the file cannot be read.
 */
export function admissionPluginConfiguration(c: AdmissionConfiguration, pluginName: string): string | null {
  const i = (c.plugins ?? []).findIndex((p) => p.name === pluginName);
  if (i < 0) return null;
  const p = c.plugins[i]!;
  const raw = rawConfigurations.get(c)?.[i] ?? (p.configuration != null ? JSON.stringify(p.configuration) : undefined);
  if (raw !== undefined) return raw;
  if (!p.path) return null;
  const r = readConfigFile(p.path);
  if ('error' in r) throw new Error(`couldn't open admission plugin configuration ${p.path}: ${r.error}`);
  return r.text;
}

/** Decode, then check that every plugin configuration can be resolved (a missing file is an error now, not at plugin start). */
export function loadAdmissionConfiguration(text: string, opts: AdmissionLoadOptions = {}): AdmissionConfiguration {
  const c = decodeAdmissionConfiguration(text, opts);
  const errs = [];
  const seen = new Set<string>();
  for (const [i, p] of (c.plugins ?? []).entries()) {
    if (seen.has(p.name)) continue;
    seen.add(p.name);
    if (p.configuration != null || !p.path) continue;
    const r = readConfigFile(p.path);
    if ('error' in r) {
      errs.push(
        fieldErrors.invalid(FieldPath.root('plugins').index(i).child('path'), p.path, `couldn't open admission plugin configuration: ${r.error}`),
      );
    }
  }
  if (errs.length) throw new ValidationError(errs);
  return c;
}

export function loadAdmissionConfigurationFile(path: string, opts: Omit<AdmissionLoadOptions, 'path'> = {}): AdmissionConfiguration {
  if (!path) return { plugins: [] };
  const r = readConfigFile(path);
  if ('error' in r) fail(`unable to read admission control configuration from ${JSON.stringify(path)} [${r.error}]`);
  return loadAdmissionConfiguration(r.text, { ...opts, path });
}

