// A grpc-js client constructor from a protobufjs JSON descriptor, with protobufjs/light. @grpc/proto-loader
// parses .proto text and builds a full FileDescriptorProto set for every type at load time, which cost the
// node agent 110-180 ms of CPU at every start (bench/clet-start); the JSON form skips the parser and the
// descriptors, and message codecs are generated per type on first use. Values convert as proto-loader's
// do (fromObject before encode, toObject with the caller's conversion options after decode), so callers
// see the same shapes. The reflection types are made on a method's first call, each with the definitions it
// reaches: Root.fromJSON of the whole CRI subset (115 types) cost ~10-20 ms of the agent's start before its
// first CRI call, which needs four of them.
import * as grpc from '@grpc/grpc-js';
import { Root, type AnyNestedObject, type INamespace, type IConversionOptions, type Namespace, type Type } from 'protobufjs/light';

export type { INamespace as ProtoJson, IConversionOptions as ProtoConversion };

type Nested = Record<string, AnyNestedObject>;

/**
 * A package's types, added to one Root as they are first needed. Each lookup adds the named top-level
 * definition and every top-level definition its fields (and nested types' fields) name, so protobufjs resolves
 * them as if the whole file had been loaded. A descriptor this does not follow (package-qualified or nested
 * type names, options, more than one package) is loaded whole, as before.
 */
class PackageTypes {
  private root: Root | undefined;
  private readonly added = new Set<string>();

  constructor(private readonly json: INamespace, private readonly pkg: string, private readonly defs: Nested | undefined) {}

  static of(json: INamespace, pkg: string): PackageTypes {
    let ns: INamespace | undefined = json;
    for (const part of pkg.split('.')) {
      const keys = Object.keys(ns ?? {});
      if (keys.some((k) => k !== 'nested') || Object.keys(ns?.nested ?? {}).length !== 1) ns = undefined;
      else ns = ns?.nested?.[part] as INamespace | undefined;
    }
    const defs = ns && Object.keys(ns).every((k) => k === 'nested') ? (ns.nested as Nested) : undefined;
    return new PackageTypes(json, pkg, defs && Object.values(defs).every(simpleNames) ? defs : undefined);
  }

  type(name: string): Type {
    if (!this.defs) {
      // Resolved from the package, as a method of a service in it resolves its types.
      this.root ??= Root.fromJSON(this.json);
      return (this.root.lookup(this.pkg) as Namespace).lookupType(name);
    }
    this.root ??= new Root();
    const batch: Nested = {};
    const todo = [name];
    for (let n = todo.pop(); n !== undefined; n = todo.pop()) {
      if (this.added.has(n) || !Object.prototype.hasOwnProperty.call(this.defs, n)) continue;
      this.added.add(n);
      batch[n] = this.defs[n];
      todo.push(...typeNames(this.defs[n]));
    }
    if (Object.keys(batch).length > 0) this.root.define(this.pkg).addJSON(batch);
    return this.root.lookupType(`${this.pkg}.${name}`);
  }
}

/** The type names a definition's fields use (and its nested definitions' fields). */
function typeNames(def: AnyNestedObject): string[] {
  const d = def as { fields?: Record<string, { type: string }>; nested?: Nested };
  const own = Object.values(d.fields ?? {}).map((f) => f.type);
  return [...own, ...Object.values(d.nested ?? {}).flatMap(typeNames)];
}

/** Field types and method types are plain names (resolved in the package), not paths. */
function simpleNames(def: AnyNestedObject): boolean {
  const d = def as { methods?: Record<string, { requestType: string; responseType: string }> };
  const methodTypes = Object.values(d.methods ?? {}).flatMap((m) => [m.requestType, m.responseType]);
  return [...typeNames(def), ...methodTypes].every((t) => !t.includes('.'));
}

/** fn() on first use, then its result. */
function once<T>(fn: () => T): () => T {
  let v: T | undefined;
  return () => (v ??= fn());
}

function serializer(type: () => Type): (value: object) => Buffer {
  return (value) => {
    const t = type();
    return Buffer.from(t.encode(t.fromObject(value as Record<string, unknown>)).finish());
  };
}

function deserializer(type: () => Type, conversion: IConversionOptions): (bytes: Buffer) => object {
  return (bytes) => {
    const t = type();
    return t.toObject(t.decode(bytes), conversion);
  };
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

interface MethodJson {
  requestType: string;
  responseType: string;
  requestStream?: boolean;
  responseStream?: boolean;
}

/** The client constructors of the services named (package-qualified, e.g. `runtime.v1.RuntimeService`). */
export function serviceClientsFromJson(json: INamespace, fullNames: string[], conversion: IConversionOptions): grpc.ServiceClientConstructor[] {
  const packages = new Map<string, PackageTypes>();
  return fullNames.map((fullName) => {
    const pkg = fullName.slice(0, fullName.lastIndexOf('.'));
    if (!packages.has(pkg)) packages.set(pkg, PackageTypes.of(json, pkg));
    return serviceClient(json, packages.get(pkg)!, fullName, conversion);
  });
}

function serviceClient(json: INamespace, types: PackageTypes, fullName: string, conversion: IConversionOptions): grpc.ServiceClientConstructor {
  let def: INamespace | undefined = json;
  for (const part of fullName.split('.')) def = def?.nested?.[part] as INamespace | undefined;
  const methodsJson = (def as { methods?: Record<string, MethodJson> } | undefined)?.methods;
  if (!methodsJson) throw new Error(`no such service: ${fullName}`);
  const methods: Record<string, grpc.MethodDefinition<object, object>> = {};
  for (const [name, m] of Object.entries(methodsJson)) {
    const req = once(() => types.type(m.requestType));
    const res = once(() => types.type(m.responseType));
    methods[name] = {
      path: `/${fullName}/${name}`,
      requestStream: !!m.requestStream,
      responseStream: !!m.responseStream,
      requestSerialize: serializer(req),
      requestDeserialize: deserializer(req, conversion),
      responseSerialize: serializer(res),
      responseDeserialize: deserializer(res, conversion),
      // As proto-loader: the client answers to the method's name and to its lowerCamelCase form.
      originalName: lowerFirst(name),
    };
  }
  return grpc.makeGenericClientConstructor(methods, fullName);
}
