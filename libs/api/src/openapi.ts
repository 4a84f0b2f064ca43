// OpenAPI v3 documents generated from the kinds' schemas, in the shape kubectl reads: one document per group
// version (`/openapi/v3/api/v1`), schemas under components with `x-kubernetes-group-version-kind`, and per path
// operations tagged with `x-kubernetes-action` whose parameters include `fieldValidation` (so kubectl leaves
// field validation to the server) and whose patch body lists the strategic merge patch type (so client-side
// apply computes its patches from these schemas). A subresource whose body is another kind (deployments/scale
// answers with autoscaling/v1 Scale) adds its paths and that kind's schema to the document of its resource.
import type { TSchema } from '@sinclair/typebox';
import { apiVersionOf, definitionName, type KindDefinition } from './kind';

type Json = Record<string, unknown>;

/** A subresource served as another kind than its resource: `scale` of `deployment`, with body `kind` (Scale). */
export interface SubresourceDocument {
  resource: KindDefinition;
  subresource: string;
  kind: KindDefinition;
}

/**
 * The schema name of a kind. Built-in groups without a domain (apps, autoscaling) are Go packages under
 * k8s.io/api too: io.k8s.api.apps.v1.Deployment, not the reversed group name.
 */
function schemaName(def: Pick<KindDefinition, 'group' | 'version' | 'kind'>): string {
  return def.group && !def.group.includes('.') ? `io.k8s.api.${def.group}.${def.version}.${def.kind}` : definitionName(def);
}

/** A TypeBox schema as plain OpenAPI: TypeBox's own markers and cl's annotations go, required fields are listed. */
export function toOpenApi(schema: TSchema): Json {
  if (schema.anyOf) {
    const alts = schema.anyOf as TSchema[];
    const nonNull = alts.filter((a) => a.type !== 'null');
    // Nullable time fields are plain date-time strings upstream.
    if (nonNull.length === 1) return { ...toOpenApi(nonNull[0]), ...common(schema) };
    return { ...common(schema), anyOf: nonNull.map(toOpenApi) };
  }
  const out: Json = { ...common(schema) };
  if (schema.type) out.type = schema.type;
  if (schema.format) out.format = schema.format;
  if (schema.default !== undefined) out.default = schema.default;
  if (schema.type === 'array') out.items = toOpenApi(schema.items as TSchema);
  if (schema.type === 'object' && schema.patternProperties) {
    out.additionalProperties = toOpenApi(Object.values(schema.patternProperties as Record<string, TSchema>)[0]);
  } else if (schema.type === 'object') {
    const props = (schema.properties ?? {}) as Record<string, TSchema>;
    out.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, toOpenApi(v)]));
    const required = Object.entries(props).filter(([, v]) => v['x-cl-required']).map(([k]) => k);
    if (required.length) out.required = required;
  }
  return out;
}

function common(schema: TSchema): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'description' || (k.startsWith('x-kubernetes-') && v !== undefined)) out[k] = v;
  }
  return out;
}

const gvk = (def: Pick<KindDefinition, 'group' | 'version' | 'kind'>) => [{ group: def.group, version: def.version, kind: def.kind }];
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schemaRef: Json) => ({ 'application/json': { schema: schemaRef } });
const query = (name: string, description: string, type = 'string') => ({ name, in: 'query', description, schema: { type }, uniqueItems: true });

const WRITE_PARAMS = [
  query('dryRun', 'When present (All), the request is validated and not persisted.'),
  query('fieldManager', 'Name of the actor making the change.'),
  query('fieldValidation', 'Ignore, Warn (default) or Strict: what to do with unknown or duplicate fields in the body.'),
];
const LIST_PARAMS = [
  query('labelSelector', 'Only objects whose labels match.'),
  query('fieldSelector', 'Only objects whose fields match.'),
  query('limit', 'At most this many items; continue with the returned token.', 'integer'),
  query('continue', 'The token of the previous page.'),
  query('resourceVersion', 'Which revision the list may be served from.'),
  query('resourceVersionMatch', 'NotOlderThan or Exact.'),
  query('watch', 'Stream changes instead of listing.', 'boolean'),
  query('allowWatchBookmarks', 'Ask for BOOKMARK events.', 'boolean'),
  query('timeoutSeconds', 'End a list or watch after this long.', 'integer'),
];
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

const collectionPath = (def: KindDefinition) => {
  const base = def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
  return def.namespaced ? `${base}/namespaces/{namespace}/${def.plural}` : `${base}/${def.plural}`;
};
const scopeParams = (def: KindDefinition) => (def.namespaced ? [{ name: 'namespace', in: 'path', required: true, schema: { type: 'string' } }] : []);
const itemParams = (def: KindDefinition) => [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }, ...scopeParams(def)];
const ok = (schema: string) => ({ responses: { '200': { description: 'OK', content: json(ref(schema)) } } });
const PATCH_PARAMS = [...WRITE_PARAMS, query('force', 'Take over conflicting fields in an apply patch.', 'boolean')];
const patchBody = () => ({ content: Object.fromEntries(PATCH_TYPES.map((t) => [t, { schema: { type: 'object' } }])), required: true });

function paths(def: KindDefinition): Json {
  const collection = collectionPath(def);
  const name = schemaName(def);
  const op = (action: string, extra: Json) => ({ 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk(def)[0], ...extra });
  return {
    [collection]: {
      parameters: scopeParams(def),
      get: op('list', { description: `list or watch ${def.plural}`, parameters: LIST_PARAMS, ...ok(`${name}List`) }),
      post: op('post', { description: `create a ${def.kind}`, parameters: WRITE_PARAMS, requestBody: { content: json(ref(name)), required: true }, ...ok(name) }),
      delete: op('deletecollection', { description: `delete a collection of ${def.plural}`, parameters: LIST_PARAMS, ...ok('io.k8s.apimachinery.pkg.apis.meta.v1.Status') }),
    },
    [`${collection}/{name}`]: {
      parameters: itemParams(def),
      get: op('get', { description: `read the specified ${def.kind}`, ...ok(name) }),
      put: op('put', { description: `replace the specified ${def.kind}`, parameters: WRITE_PARAMS, requestBody: { content: json(ref(name)), required: true }, ...ok(name) }),
      patch: op('patch', { description: `partially update the specified ${def.kind}`, parameters: PATCH_PARAMS, requestBody: patchBody(), ...ok(name) }),
      delete: op('delete', { description: `delete a ${def.kind}`, ...ok('io.k8s.apimachinery.pkg.apis.meta.v1.Status') }),
    },
  };
}

/** get, put and patch of `<resource>/{name}/<subresource>`, answered with the subresource's kind. */
function subresourcePaths(sub: SubresourceDocument): Json {
  const { resource: def, kind } = sub;
  const name = schemaName(kind);
  const op = (action: string, extra: Json) => ({ 'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': gvk(kind)[0], ...extra });
  return {
    [`${collectionPath(def)}/{name}/${sub.subresource}`]: {
      parameters: itemParams(def),
      get: op('get', { description: `read ${sub.subresource} of the specified ${def.kind}`, ...ok(name) }),
      put: op('put', { description: `replace ${sub.subresource} of the specified ${def.kind}`, parameters: WRITE_PARAMS, requestBody: { content: json(ref(name)), required: true }, ...ok(name) }),
      patch: op('patch', { description: `partially update ${sub.subresource} of the specified ${def.kind}`, parameters: PATCH_PARAMS, requestBody: patchBody(), ...ok(name) }),
    },
  };
}

/**
 * The OpenAPI v3 document of one group version, e.g. ('', 'v1') for /openapi/v3/api/v1, with the subresources of
 * its kinds that answer as other kinds.
 */
export function openApiV3(kinds: KindDefinition[], group: string, version: string, subresources: readonly SubresourceDocument[] = []): Json {
  const served = kinds.filter((k) => k.group === group && k.version === version);
  const schemas: Json = {};
  let allPaths: Json = {};
  for (const sub of subresources.filter((s) => served.includes(s.resource))) {
    schemas[schemaName(sub.kind)] = { ...toOpenApi(sub.kind.schema), description: sub.kind.description, 'x-kubernetes-group-version-kind': gvk(sub.kind) };
    allPaths = { ...allPaths, ...subresourcePaths(sub) };
  }
  for (const def of served) {
    const name = schemaName(def);
    schemas[name] = { ...toOpenApi(def.schema), description: def.description, 'x-kubernetes-group-version-kind': gvk(def) };
    schemas[`${name}List`] = {
      description: `A list of ${def.kind} objects.`,
      type: 'object',
      required: ['items'],
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object' },
        items: { type: 'array', items: ref(name) },
      },
      'x-kubernetes-group-version-kind': [{ group, version, kind: def.listKind }],
    };
    allPaths = { ...allPaths, ...paths(def) };
  }
  schemas['io.k8s.apimachinery.pkg.apis.meta.v1.Status'] = {
    description: 'The result of an operation that returns no object.',
    type: 'object',
    properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, status: { type: 'string' }, message: { type: 'string' }, reason: { type: 'string' }, code: { type: 'integer', format: 'int32' }, details: { type: 'object' } },
  };
  return {
    openapi: '3.0.0',
    info: { title: 'cl', version: served[0] ? apiVersionOf(served[0]) : `${group}/${version}` },
    paths: allPaths,
    components: { schemas },
  };
}

/** A v3 parameter in Swagger 2.0 form: its schema's type inline. */
function toV2Parameter(p: Json): Json {
  const { schema, ...rest } = p as Json & { schema?: Json };
  return { ...rest, ...(schema ?? {}) };
}

/** The same operation in Swagger 2.0 form: typed parameters, the body as a parameter, responses with a schema. */
function toV2Operation(op: Json): Json {
  const out: Json = { ...op };
  const params = ((op.parameters as Json[] | undefined) ?? []).map(toV2Parameter);
  const body = op.requestBody as { content: Record<string, { schema: Json }> } | undefined;
  if (body) {
    const types = Object.keys(body.content);
    params.unshift({ name: 'body', in: 'body', required: true, schema: body.content[types[0]].schema });
    out.consumes = types;
    delete out.requestBody;
  }
  if (params.length) out.parameters = params;
  const responses = op.responses as Record<string, { description: string; content?: Record<string, { schema: Json }> }> | undefined;
  if (responses) {
    out.responses = Object.fromEntries(Object.entries(responses).map(([code, r]) => [code, { description: r.description, ...(r.content ? { schema: Object.values(r.content)[0].schema } : {}) }]));
    out.produces = ['application/json'];
  }
  return out;
}

/** One Swagger 2.0 document for every kind (`/openapi/v2`), built from the v3 documents of their group versions. */
export function openApiV2(kinds: KindDefinition[], subresources: readonly SubresourceDocument[] = []): Json {
  const gvs = [...new Set(kinds.map((k) => `${k.group}/${k.version}`))];
  const paths: Json = {};
  let definitions: Json = {};
  for (const gv of gvs) {
    const [group, version] = gv.split('/');
    const doc = openApiV3(kinds, group, version, subresources) as { paths: Record<string, Json>; components: { schemas: Json } };
    for (const [path, item] of Object.entries(doc.paths)) {
      paths[path] = Object.fromEntries(Object.entries(item).map(([k, v]) => [k, k === 'parameters' ? (v as Json[]).map(toV2Parameter) : toV2Operation(v as Json)]));
    }
    definitions = { ...definitions, ...doc.components.schemas };
  }
  const text = JSON.stringify({ swagger: '2.0', info: { title: 'cl', version: 'v1.33.0' }, paths, definitions }).replaceAll('#/components/schemas/', '#/definitions/');
  return JSON.parse(text) as Json;
}
