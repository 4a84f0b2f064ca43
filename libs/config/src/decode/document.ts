// Turns file bytes into a typed document the way apimachinery's UniversalDecoder does with strict mode on:
// JSON if the first non-space byte is `{`, YAML otherwise; apiVersion/kind looked up in a scheme; strict
// field errors collected; the kind's conversion to the internal form applied.
import { JsonSyntaxError, parseJsonTree } from './json-parse';
import { decodeStrict, DecodeTypeError, type FieldType } from './schema';
import type { JNode } from './tree';
import { parseYamlTree, YamlSyntaxError } from './yaml-tree';

/** A decode failure; `message` is the upstream text (e.g. `strict decoding error: unknown field "foo"`). */
export class DecodeError extends Error {
  constructor(
    message: string,
    /** Why: missing/unregistered kind, strict field problems, or anything else. */
    readonly reason: 'missing-kind' | 'missing-version' | 'not-registered' | 'strict' | 'other',
  ) {
    super(message);
    this.name = 'DecodeError';
  }
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export const gvkString = (g: GroupVersionKind) => `${g.group ? `${g.group}/` : ''}${g.version}, Kind=${g.kind}`;

/** One registered (apiVersion, kind): its field schema and the conversion to the internal form. */
export interface KindRegistration {
  apiVersion: string;
  kind: string;
  schema: FieldType & { k: 'struct' };
  toInternal: (decoded: Record<string, unknown>) => unknown;
}

export interface Scheme {
  /** Printed in `no kind ... is registered ... in scheme "<name>"`. */
  name: string;
  kinds: KindRegistration[];
}

export interface ParsedSource {
  format: 'json' | 'yaml';
  root: JNode;
  yamlDuplicates: string[];
}

export function parseSource(text: string): ParsedSource {
  const trimmed = text.replace(/^[ \t\r\n]+/, '');
  if (trimmed.startsWith('{')) {
    try {
      return { format: 'json', root: parseJsonTree(text), yamlDuplicates: [] };
    } catch (e) {
      if (e instanceof JsonSyntaxError) {
        throw new DecodeError(`couldn't get version/kind; json parse error: ${e.message}`, 'other');
      }
      throw e;
    }
  }
  try {
    const y = parseYamlTree(text);
    return { format: 'yaml', root: y.root, yamlDuplicates: y.duplicateKeys };
  } catch (e) {
    if (e instanceof YamlSyntaxError) throw new DecodeError(`error converting YAML to JSON: ${e.message}`, 'other');
    throw e;
  }
}

/** apiVersion and kind of the top-level object ("" when absent). */
export function readTypeMeta(root: JNode): { apiVersion: string; kind: string } {
  if (root.t === 'null') return { apiVersion: '', kind: '' };
  if (root.t !== 'object') {
    throw new DecodeError(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${root.t} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
      'other',
    );
  }
  const meta = { apiVersion: '', kind: '' };
  for (const [k, v] of root.entries) {
    if (k !== 'apiVersion' && k !== 'kind') continue;
    if (v.t === 'null') continue;
    if (v.t !== 'string') {
      throw new DecodeError(
        `couldn't get version/kind; json parse error: json: cannot unmarshal ${v.t} into Go struct field .${k} of type string`,
        'other',
      );
    }
    meta[k] = v.v;
  }
  return meta;
}

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export interface DecodedDocument {
  registration: KindRegistration;
  /** The internal (converted, defaulted) object. */
  object: unknown;
  format: 'json' | 'yaml';
  root: JNode;
  /** The original text, for error messages that quote it and for raw embedded objects. */
  text: string;
}

export interface DecodeOptions {
  /** Used when the document has neither apiVersion nor kind (tracing decodes *into* its type). */
  defaultKind?: { apiVersion: string; kind: string };
}

export function decodeDocument(text: string, scheme: Scheme, opts: DecodeOptions = {}): DecodedDocument {
  const src = parseSource(text);
  let meta = readTypeMeta(src.root);
  if (opts.defaultKind && (!meta.kind || meta.kind === opts.defaultKind.kind) && (!meta.apiVersion || !meta.kind)) {
    meta = { apiVersion: meta.apiVersion || opts.defaultKind.apiVersion, kind: meta.kind || opts.defaultKind.kind };
  }
  if (!meta.kind) throw new DecodeError(`Object 'Kind' is missing in '${text}'`, 'missing-kind');
  if (!meta.apiVersion) throw new DecodeError(`Object 'apiVersion' is missing in '${text}'`, 'missing-version');
  const reg = scheme.kinds.find((k) => k.apiVersion === meta.apiVersion && k.kind === meta.kind);
  if (!reg) {
    throw new DecodeError(
      `no kind ${JSON.stringify(meta.kind)} is registered for version ${JSON.stringify(meta.apiVersion)} in scheme ${JSON.stringify(scheme.name)}`,
      'not-registered',
    );
  }
  let value: Record<string, unknown>;
  let strictErrors: string[];
  try {
    ({ value, strictErrors } = decodeStrict(src.root.t === 'null' ? { t: 'object', entries: [] } : src.root, reg.schema));
  } catch (e) {
    if (e instanceof DecodeTypeError) throw new DecodeError(e.message, 'other');
    throw e;
  }
  const problems = [...(src.yamlDuplicates.length ? [`yaml: unmarshal errors:\n  ${src.yamlDuplicates.join('\n  ')}`] : []), ...strictErrors];
  if (problems.length) throw new DecodeError(`strict decoding error: ${problems.join(', ')}`, 'strict');
  // the document says what it is, even when tracing's apiVersion/kind were left out
  value['apiVersion'] = reg.apiVersion;
  value['kind'] = reg.kind;
  return { registration: reg, object: reg.toInternal(value), format: src.format, root: src.root, text };
}
