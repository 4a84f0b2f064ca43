// --config and --config-dir: reading, decoding (strict for CletConfiguration, upstream's strict-then-lenient
// for KubeletConfiguration), v1beta1 defaulting, relative paths, and JSON-merge-patch drop-ins.
import { readFileSync, readdirSync, lstatSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { applyFileDefaults } from './defaults';
import { decodeWithSchema } from './schema';
import { logLine, type LogFn } from '../log';
import {
  CLET_CONFIG_GROUP_VERSION,
  CLET_CONFIG_KIND,
  KUBELET_CONFIG_GROUP_VERSION,
  KUBELET_CONFIG_KIND,
  type CletConfiguration,
} from './types';

export type Log = LogFn;

/** Go's error text for a failed open/stat. */
export function fsErrorText(op: string, path: string, e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  const text: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EISDIR: 'is a directory',
    ENOTDIR: 'not a directory',
  };
  return `${op} ${path}: ${(code && text[code]) || (e as Error).message}`;
}

/** YAML 1.1 (as sigs.k8s.io/yaml) or JSON into a plain object; duplicate keys reported separately. */
function parseYamlOrJson(text: string): { doc: unknown; duplicateKeys: string[] } {
  const parsed = parseDocument(text, { version: '1.1', uniqueKeys: false, prettyErrors: false });
  const fatal = parsed.errors[0];
  if (fatal) throw new Error(`error converting YAML to JSON: yaml: ${fatal.message.split('\n')[0]}`);
  const duplicateKeys: string[] = [];
  const seen = (node: unknown): void => {
    const items = (node as { items?: Array<{ key?: { value?: unknown }; value?: unknown }> })?.items;
    if (!Array.isArray(items)) return;
    const keys = new Set<unknown>();
    for (const it of items) {
      if (it && typeof it === 'object' && 'key' in it) {
        const k = (it.key as { value?: unknown } | undefined)?.value;
        if (keys.has(k)) duplicateKeys.push(String(k));
        keys.add(k);
        seen(it.value);
      } else seen(it);
    }
  };
  seen(parsed.contents);
  return { doc: parsed.toJS({ maxAliasCount: 100 }), duplicateKeys };
}

const RELATIVE_PATH_FIELDS: Array<(c: CletConfiguration) => [get: string, set: (v: string) => void]> = [
  (c) => [c.staticPodPath, (v) => (c.staticPodPath = v)],
  (c) => [c.authentication.x509.clientCAFile, (v) => (c.authentication.x509.clientCAFile = v)],
  (c) => [c.tlsCertFile, (v) => (c.tlsCertFile = v)],
  (c) => [c.tlsPrivateKeyFile, (v) => (c.tlsPrivateKeyFile = v)],
  (c) => [c.resolvConf, (v) => (c.resolvConf = v)],
  (c) => [c.volumePluginDir, (v) => (c.volumePluginDir = v)],
];

interface Decoded {
  doc: Record<string, unknown>;
  strict: boolean;
}

/** Decodes one document and checks its kind; `what` names it in errors. */
function decodeDocument(text: string, log: Log, dropIn: boolean): Decoded {
  let parsed: { doc: unknown; duplicateKeys: string[] };
  try {
    parsed = parseYamlOrJson(text);
  } catch (e) {
    throw new Error(`failed to decode: ${(e as Error).message}`);
  }
  const raw = parsed.doc;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new Error(`failed to decode: couldn't get version/kind; json parse error: cannot unmarshal into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const obj = raw as Record<string, unknown>;
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  if (kind === '') throw new Error(`failed to decode: Object 'Kind' is missing in '${JSON.stringify(obj)}'`);
  const strict = apiVersion === CLET_CONFIG_GROUP_VERSION && kind === CLET_CONFIG_KIND;
  const upstream = apiVersion === KUBELET_CONFIG_GROUP_VERSION && kind === KUBELET_CONFIG_KIND;
  if (!strict && !upstream) {
    throw new Error(`failed to decode: no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)}`);
  }
  const out = decodeWithSchema(obj);
  if (out.typeErrors.length > 0) throw new Error(`failed to decode: ${out.typeErrors.join(', ')}`);
  const strictErrors = [
    ...out.unknownFields.map((f) => `unknown field ${JSON.stringify(f)}`),
    ...parsed.duplicateKeys.map((k) => `duplicate field ${JSON.stringify(k)}`),
  ];
  if (strictErrors.length > 0) {
    const text = `strict decoding error: ${strictErrors.join(', ')}`;
    // Our own kind is new, so it is decoded strictly everywhere; upstream files keep upstream's lenient
    // fallback (logged for --config, silent for drop-ins).
    if (strict) throw new Error(`failed to decode: ${text}`);
    if (!dropIn) log(logLine('Using lenient decoding as strict decoding failed', { err: text }, { severity: 'W' }));
  }
  return { doc: out.value, strict };
}

/** Loads --config. Throws with the message RunE prints after `failed to load clet config file, ...`. */
export function loadConfigFile(path: string, log: Log): CletConfiguration {
  const abs = resolve(path);
  const errFmt = (inner: string) => new Error(`failed to load Clet config file ${abs}, error ${inner}`);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (e) {
    throw errFmt(`failed to read clet config file ${JSON.stringify(abs)}, error: ${fsErrorText('open', abs, e)}`);
  }
  if (text.trim() === '') throw errFmt(`clet config file ${JSON.stringify(abs)} was empty`);
  let decoded: Decoded;
  try {
    decoded = decodeDocument(text, log, false);
  } catch (e) {
    throw errFmt((e as Error).message);
  }
  const config = applyFileDefaults(decoded.doc);
  const base = dirname(abs);
  for (const field of RELATIVE_PATH_FIELDS) {
    const [value, set] = field(config);
    if (value !== '' && !isAbsolute(value)) set(join(base, value));
  }
  return config;
}

/** Every `*.conf` under dir, recursively, in lexical walk order (filepath.WalkDir). */
function walkConf(dir: string): string[] {
  const out: string[] = [];
  const visit = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      if (st.isDirectory()) visit(p);
      else if (name.endsWith('.conf') && name.length > 5 && st.isFile()) out.push(p);
    }
  };
  visit(dir);
  return out;
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** --config-dir: merges every drop-in over `base`. Throws with the text after `failed to merge clet configs: `. */
export function mergeDropIns(base: CletConfiguration, dir: string, log: Log): CletConfiguration {
  const walkErr = (inner: string) => new Error(`failed to walk through clet dropin directory ${JSON.stringify(dir)}: ${inner}`);
  let files: string[];
  try {
    lstatSync(dir);
    files = walkConf(dir);
  } catch (e) {
    throw walkErr(fsErrorText('lstat', dir, e));
  }
  let merged: unknown = JSON.parse(JSON.stringify(base));
  for (const file of files) {
    const loadErr = (inner: string) => walkErr(`failed to load clet dropin file, path: ${file}, error: ${inner}`);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw loadErr(fsErrorText('open', file, e));
    }
    if (text.trim() === '') throw loadErr(`clet config file ${JSON.stringify(file)} was empty`);
    let decoded: Decoded;
    try {
      // Upstream drops unknown fields of drop-ins silently; a wrong type still names the file.
      decoded = decodeDocument(text, log, true);
    } catch (e) {
      throw loadErr((e as Error).message);
    }
    // Nulls were dropped by decoding; keep the file's explicit nulls so they delete (then re-default).
    const patch = withNulls(decoded.doc, text);
    delete patch.apiVersion;
    delete patch.kind;
    merged = mergePatch(merged, patch);
  }
  return applyFileDefaults(merged as Record<string, unknown>);
}

function withNulls(decoded: Record<string, unknown>, text: string): Record<string, unknown> {
  const raw = parseYamlOrJson(text).doc as Record<string, unknown>;
  const put = (d: Record<string, unknown>, r: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(r)) {
      if (v === null) d[k] = null;
      else if (v && typeof v === 'object' && !Array.isArray(v) && d[k] && typeof d[k] === 'object') {
        put(d[k] as Record<string, unknown>, v as Record<string, unknown>);
      }
    }
  };
  const out = structuredClone(decoded);
  put(out, raw);
  return out;
}
