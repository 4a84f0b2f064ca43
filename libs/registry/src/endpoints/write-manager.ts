// Who a write is on behalf of, and the server-side apply patch: the `fieldManager` and `force` query parameters
// checked as upstream's Create/Update/PatchOptions validation, the apply body (YAML or JSON) read as an object of
// the kind, and the field manager's refusals turned into upstream's Status answers.
import type { IncomingMessage } from 'node:http';
import { apiVersionOf, type KindDefinition } from '@cl/api';
import { ApiError, apiErrors, fieldErrors, nestingDepthExceeds, statusFailure, type FieldError, type KubeObject } from '@cl/apimachinery';
import { yamlToJson, YamlSyntaxError } from '@cl/config';
import { parseGoBool } from '@cl/flags';
import { ApplyConflictError, FieldManager, InvalidApplyError, managerFromUserAgent, validateFieldManager } from '@cl/field-manager';

export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

/**
 * The manager a write is recorded for: `?fieldManager=` (checked: at most 128 bytes, printable), else the
 * User-Agent's program name. An apply must name one; `force` belongs to applies only.
 */
export function writeManager(req: IncomingMessage, q: URLSearchParams, kind: OptionsKind, apply = false): string {
  const given = q.get('fieldManager') ?? '';
  const errs: FieldError[] = [];
  if (kind === 'PatchOptions' && !apply && q.has('force')) errs.push(fieldErrors.forbidden('force', 'may not be specified for non-apply patch'));
  if (apply && !given) errs.push(fieldErrors.required('fieldManager', 'is required for apply patch'));
  for (const e of validateFieldManager(given)) errs.push(e.type === 'TooLong' ? fieldErrors.tooLong('fieldManager', e.max) : fieldErrors.invalid('fieldManager', given, e.detail));
  if (errs.length) throw apiErrors.invalid('meta.k8s.io', kind, '', errs);
  return given || managerFromUserAgent(req.headers['user-agent']);
}

/** `?force=true|false` of an apply (upstream parses it as a Go bool). */
export function parseForce(q: URLSearchParams): boolean {
  const v = q.get('force');
  if (v === null || v === '') return false;
  try {
    return parseGoBool(v);
  } catch {
    throw apiErrors.badRequest(`force: invalid value ${JSON.stringify(v)}: must be a boolean`);
  }
}

/** An apply body: one YAML or JSON object of the kind `def` (its apiVersion and kind must be the kind's). */
export function parseApplyBody(def: KindDefinition, raw: Buffer): KubeObject {
  const text = raw.toString('utf8');
  if (nestingDepthExceeds(text)) throw apiErrors.badRequest('error decoding YAML: exceeded max depth');
  let value: unknown;
  try {
    value = parseJsonOrYaml(text);
  } catch (e) {
    if (e instanceof YamlSyntaxError || e instanceof SyntaxError) throw apiErrors.badRequest(`error decoding YAML: ${e.message}`);
    throw e;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw apiErrors.badRequest('error decoding YAML: the apply configuration is not an object');
  const config = value as KubeObject;
  const want = apiVersionOf(def);
  if (config.apiVersion !== want) throw apiErrors.badRequest(`Incorrect version specified in apply patch. Specified patch version: ${config.apiVersion ?? ''}, expected: ${want}`);
  if (config.kind !== def.kind) throw apiErrors.badRequest(`the kind in the data (${config.kind ?? ''}) does not match the expected kind (${def.kind})`);
  return config;
}

/** JSON is YAML; most clients (client-go, client-node) send JSON, which needs no YAML parser. */
function parseJsonOrYaml(text: string): unknown {
  if (/^\s*\{/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // a flow mapping that is YAML but not JSON
    }
  }
  return JSON.parse(yamlToJson(text));
}

/** The field manager's apply, its refusals as the Status answers upstream gives. */
export function applyConfiguration(fm: FieldManager, current: KubeObject | null, config: KubeObject, manager: string, subresource: string, force: boolean): KubeObject {
  try {
    return fm.apply(current as Record<string, unknown> | null, structuredClone(config) as Record<string, unknown>, { manager, subresource }, force) as KubeObject;
  } catch (e) {
    if (e instanceof ApplyConflictError) throw new ApiError(statusFailure(409, 'Conflict', e.message, { causes: e.causes }));
    if (e instanceof InvalidApplyError) throw apiErrors.badRequest(e.message);
    throw e;
  }
}
