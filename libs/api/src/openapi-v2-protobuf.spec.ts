// The protobuf form of /openapi/v2 decodes, with a .proto of gnostic's message and field numbers, back to the very
// document served as JSON (less anyOf, which Swagger 2.0 has no field for).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as protobuf from 'protobufjs';
import { configMap, deployment, eventV1, lease, namespace, node, pod, secret } from './index';
import { openApiV2 } from './openapi';
import { openApiV2Protobuf } from './openapi-v2-protobuf';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const root = protobuf.parse(readFileSync(join(__dirname, 'testdata/openapi-v2-subset.proto'), 'utf8'), { keepCase: true }).root;
const Document = root.lookupType('openapi.v2.Document');

const extensions = (named: Json[] | undefined) => Object.fromEntries((named ?? []).map((n) => [n.name, JSON.parse(n.value.yaml)]));
const entries = <T>(named: Json[] | undefined, value: (v: Json) => T) => Object.fromEntries((named ?? []).map((n) => [n.name, value(n.value)]));
const defined = (o: Json) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '' && v !== false && !(Array.isArray(v) && v.length === 0)));

function schema(s: Json): Json {
  // A default is kept whatever its value ("" and false are defaults too).
  const withDefault = (o: Json) => (s.default ? { ...o, default: JSON.parse(s.default.yaml) } : o);
  return withDefault(defined({
    $ref: s._ref,
    format: s.format,
    description: s.description,
    required: s.required,
    additionalProperties: s.additional_properties ? (s.additional_properties.schema ? schema(s.additional_properties.schema) : s.additional_properties.boolean) : undefined,
    type: s.type?.value?.[0],
    items: s.items ? schema(s.items.schema[0]) : undefined,
    properties: s.properties ? entries(s.properties.additional_properties, schema) : undefined,
    ...extensions(s.vendor_extension),
  }));
}

function parameter(item: Json): Json {
  const p = item.parameter;
  if (p.body_parameter) return defined({ ...p.body_parameter, schema: schema(p.body_parameter.schema) });
  const sub = p.non_body_parameter.query_parameter_sub_schema ?? p.non_body_parameter.path_parameter_sub_schema;
  return defined({ name: sub.name, in: sub.in, description: sub.description, required: sub.required, uniqueItems: sub.unique_items, type: sub.type });
}

function operation(op: Json): Json {
  return defined({
    description: op.description,
    produces: op.produces,
    consumes: op.consumes,
    parameters: op.parameters?.map(parameter),
    responses: entries(op.responses.response_code, (v) => defined({ description: v.response.description, schema: v.response.schema ? schema(v.response.schema.schema) : undefined })),
    ...extensions(op.vendor_extension),
  });
}

function fromProto(doc: Json): Json {
  return {
    swagger: doc.swagger,
    info: doc.info,
    paths: entries(doc.paths.path, (item) => defined({ parameters: item.parameters?.map(parameter), ...Object.fromEntries(['get', 'put', 'post', 'delete', 'patch'].filter((v) => item[v]).map((v) => [v, operation(item[v])])) })),
    definitions: entries(doc.definitions.additional_properties, schema),
  };
}

/** The JSON document without what the messages cannot hold (anyOf; empty parameter lists). */
function swaggerOnly(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(swaggerOnly);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k, x]) => k !== 'anyOf' && !(k === 'parameters' && Array.isArray(x) && x.length === 0))
      .map(([k, x]) => [k, swaggerOnly(x)]),
  );
}

test('the protobuf document decodes to the JSON document', () => {
  const doc = openApiV2([namespace, node, pod, configMap, secret, deployment, lease, eventV1]);
  const decoded = Document.toObject(Document.decode(openApiV2Protobuf(doc)), { defaults: false, arrays: true }) as Json;
  expect(fromProto(decoded)).toEqual(swaggerOnly(doc));
});

test('what kubectl reads from it: the kinds of definitions, list types, patch strategies, refs', () => {
  const decoded = Document.toObject(Document.decode(openApiV2Protobuf(openApiV2([pod, configMap]))), { arrays: true }) as Json;
  const defs = entries(decoded.definitions.additional_properties, (s) => s);
  const cm = defs['io.k8s.api.core.v1.ConfigMap'];
  expect(extensions(cm.vendor_extension)['x-kubernetes-group-version-kind']).toEqual([{ group: '', version: 'v1', kind: 'ConfigMap' }]);
  expect(schema(cm).properties.data).toEqual(expect.objectContaining({ type: 'object', additionalProperties: { type: 'string' } }));
  const containers = schema(defs['io.k8s.api.core.v1.Pod']).properties.spec.properties.containers;
  expect(containers).toEqual(expect.objectContaining({ type: 'array', 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' }));
  expect(schema(defs['io.k8s.api.core.v1.ConfigMapList']).properties.items.items).toEqual({ $ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' });
});
