// The request and response bodies of the REST verbs: reading a body of an accepted media type, decoding it as a
// kind (JSON or protobuf; unknown fields as fieldValidation says), applying a patch of any of the three types,
// the query parameters every write reads (fieldValidation, dryRun), and writing an object back as JSON or a Table.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiVersionOf, decode, decodeProtobuf, DecodeError, goPrint, parseFieldValidation, patchShapeError, patchStrategyAt, PROTOBUF_CONTENT_TYPE, type FieldValidation, type KindDefinition } from '@cl/api';
import { ApiError, apiErrors, fieldErrors, applyJsonPatch, applyMergePatch, applyStrategicMergePatch, nestingDepthExceeds, PatchError, statusFailure, type KubeObject } from '@cl/apimachinery';
import { yamlToJson, YamlSyntaxError } from '@cl/config';
import type { Strategy } from '../strategy';
import { mediaType, negotiate, TABLE_CONTENT_TYPE } from './negotiation';
import { notAList, partialObject } from './partial-metadata';
import { writeJson, writeText, wantsPretty } from './respond';
import { parseIncludeObject, toTable } from './table';

// In upstream's order, which the 415 message repeats; the apply patch is served apart (write-manager.ts).
export const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];
// Bodies of create and update: JSON (no Content-Type is read as JSON), YAML, or the protobuf typed clients send;
// listed in upstream's order, which the 415 message repeats.
export const YAML_CONTENT_TYPE = 'application/yaml';
export const OBJECT_TYPES = ['application/json', YAML_CONTENT_TYPE, PROTOBUF_CONTENT_TYPE, ''];

export type BodyFormat = 'json' | 'yaml' | 'protobuf';

/** How an object body of `req` is encoded (its media type is one of OBJECT_TYPES). */
export function bodyFormat(req: IncomingMessage): BodyFormat {
  const type = mediaType(req);
  return type === PROTOBUF_CONTENT_TYPE ? 'protobuf' : type === YAML_CONTENT_TYPE ? 'yaml' : 'json';
}

/** The body of a request whose media type is one of `accepted` (415 otherwise). */
export async function readBodyOf(req: IncomingMessage, accepted: readonly string[], readBody: (req: IncomingMessage) => Promise<Buffer>): Promise<Buffer> {
  const type = mediaType(req);
  if (!accepted.includes(type)) throw apiErrors.unsupportedMediaType(accepted.filter(Boolean));
  return readBody(req);
}

/** A body as the kind `def` (a resource's, or a view's), with the warnings of fieldValidation=Warn. */
export function decodeBody(def: KindDefinition, body: Buffer | string, fv: FieldValidation, format: BodyFormat = 'json'): { object: KubeObject; warnings: string[] } {
  try {
    // A protobuf body has no unknown fields to report: it is decoded by field number, then checked as JSON.
    const decoded =
      format === 'protobuf' ? decode(def, JSON.stringify(decodeProtobuf(def, body as Buffer)), 'Ignore') : decode(def, format === 'yaml' ? yamlBodyAsJson(def, body) : body, fv);
    const object = decoded.object as KubeObject;
    const apiVersion = apiVersionOf(def);
    if (object.apiVersion && object.apiVersion !== apiVersion) throw apiErrors.badRequest(`the API version in the data (${object.apiVersion}) does not match the expected API version (${apiVersion})`);
    if (object.kind && object.kind !== def.kind) throw apiErrors.badRequest(`the kind in the data (${object.kind}) does not match the expected kind (${def.kind})`);
    return { object, warnings: decoded.warnings };
  } catch (e) {
    if (e instanceof DecodeError) throw apiErrors.badRequest(e.message);
    throw e;
  }
}

function yamlBodyAsJson(def: KindDefinition, body: Buffer | string): string {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const cannot = (why: string) => apiErrors.badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${why}`);
  // The YAML parser recurses: flow collections nested past the decoder's limit are refused before it sees them.
  if (nestingDepthExceeds(text)) throw cannot('error converting YAML to JSON: yaml: exceeded max depth');
  try {
    return yamlToJson(text);
  } catch (e) {
    if (e instanceof YamlSyntaxError) throw cannot(`error converting YAML to JSON: ${e.message}`);
    throw e;
  }
}

/**
 * A JSON body that is not a kind (a patch, DeleteOptions, an action's body). What reads it walks it recursively,
 * so one nested past the decoder's limit is refused before it is parsed.
 */
export function parseJsonBody(raw: Buffer, what: string): unknown {
  if (nestingDepthExceeds(raw)) throw apiErrors.badRequest(`error decoding ${what}: exceeded max depth`);
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (e) {
    throw apiErrors.badRequest(`error decoding ${what}: ${(e as Error).message}`);
  }
}

/** A patch, read from a body of one of the patch types: how it applies to an object of a kind. */
export interface Patch {
  apply(current: unknown, def: KindDefinition, fv: FieldValidation): unknown;
}

export async function readPatch(req: IncomingMessage, readBody: (req: IncomingMessage) => Promise<Buffer>): Promise<Patch> {
  const type = mediaType(req);
  const raw = await readBodyOf(req, PATCH_TYPES, readBody);
  const patch = parseJsonBody(raw, 'patch');
  // Whether the patch holds a value of the wrong type for its field: the same for every attempt of the update.
  let shape: string | null | undefined;
  return {
    apply(current, def, fv) {
      let patched: unknown;
      try {
        if (type === 'application/json-patch+json') return applyJsonPatch(current, patch, { fieldValidation: fv });
        if (type === 'application/merge-patch+json') patched = applyMergePatch(current, patch, { fieldValidation: fv });
        else patched = applyStrategicMergePatch(current, patch, (path) => patchStrategyAt(def, path));
      } catch (e) {
        if (e instanceof PatchError) throw new ApiError(statusFailure(e.code, e.reason, e.statusMessage));
        throw e;
      }
      shape ??= patchShapeError(def, patch);
      if (shape) throw wrongShape(type, def, patch, patched, shape);
      return patched;
    },
  };
}

/**
 * A patch whose result the kind cannot hold, as upstream's patch handler refuses it: a 422 on the field `patch`
 * whose value is the patch as Go prints the map (strategic merge: the converter's message) or the patched object's
 * JSON (merge patch: the JSON decoder's message).
 */
function wrongShape(type: string, def: KindDefinition, patch: unknown, patched: unknown, converterMessage: string): ApiError {
  const invalid = (value: string, why: string) => apiErrors.invalid('', '', '', [fieldErrors.invalid('patch', value, why)]);
  if (type !== 'application/merge-patch+json') return invalid(goPrint(patch), converterMessage);
  const json = JSON.stringify(patched);
  try {
    decode(def, json, 'Ignore');
  } catch (e) {
    if (e instanceof DecodeError) return invalid(json, e.detail);
    throw e;
  }
  return invalid(json, converterMessage);
}

/** An object as JSON, or as a one-row Table of `strategy`'s columns when the client asks for one. */
export function respondObject(req: IncomingMessage, res: ServerResponse, strategy: Pick<Strategy, 'table'>, code: number, object: KubeObject, q: URLSearchParams) {
  const { form, metaVersion } = negotiate(req);
  if (form === 'table') {
    return writeJson(req, res, code, toTable(strategy, [object], object.metadata?.resourceVersion, parseIncludeObject(q.get('includeObject'))), TABLE_CONTENT_TYPE);
  }
  if (form === 'partial-list') throw notAList(object);
  if (form === 'partial') return writeJson(req, res, code, partialObject(object, metaVersion));
  if (wantsPretty(req)) return writeJson(req, res, code, object);
  writeText(res, code, JSON.stringify(object) + '\n');
}

export function fieldValidation(q: URLSearchParams): FieldValidation {
  try {
    return parseFieldValidation(q.get('fieldValidation'));
  } catch (e) {
    throw apiErrors.badRequest((e as Error).message);
  }
}

export function parseDryRun(values: string[]): boolean {
  if (values.length === 0) return false;
  for (const v of values) if (v !== 'All') throw apiErrors.badRequest(`Invalid dryRun parameter: unsupported value "${v}", supported values: "All"`);
  return true;
}

/** Unknown or duplicate fields under fieldValidation=Warn, as upstream's `Warning: 299 - "..."` headers. */
export function setWarnings(res: ServerResponse, warnings: readonly string[]) {
  if (warnings.length) res.setHeader('Warning', warnings.map((w) => `299 - ${JSON.stringify(w)}`));
}
