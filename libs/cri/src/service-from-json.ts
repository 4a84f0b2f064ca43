// A grpc-js client constructor from a protobufjs JSON descriptor, with protobufjs/light. @grpc/proto-loader
// parses .proto text and builds a full FileDescriptorProto set for every type at load time, which cost the
// node agent 110-180 ms of CPU at every start (bench/clet-start); the JSON form skips the parser and the
// descriptors, and message codecs are generated per type on first use. Values convert as proto-loader's
// do (fromObject before encode, toObject with the caller's conversion options after decode), so callers
// see the same shapes.
import * as grpc from '@grpc/grpc-js';
import { Root, type INamespace, type IConversionOptions, type Type } from 'protobufjs/light';

export type { INamespace as ProtoJson, IConversionOptions as ProtoConversion };

function serializer(type: Type): (value: object) => Buffer {
  return (value) => Buffer.from(type.encode(type.fromObject(value as Record<string, unknown>)).finish());
}

function deserializer(type: Type, conversion: IConversionOptions): (bytes: Buffer) => object {
  return (bytes) => type.toObject(type.decode(bytes), conversion);
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

/** The client constructors of the services named (package-qualified, e.g. `runtime.v1.RuntimeService`). */
export function serviceClientsFromJson(json: INamespace, fullNames: string[], conversion: IConversionOptions): grpc.ServiceClientConstructor[] {
  const root = Root.fromJSON(json);
  return fullNames.map((name) => serviceClient(root, name, conversion));
}

function serviceClient(root: Root, fullName: string, conversion: IConversionOptions): grpc.ServiceClientConstructor {
  const service = root.lookupService(fullName);
  const methods: Record<string, grpc.MethodDefinition<object, object>> = {};
  for (const m of service.methodsArray) {
    m.resolve();
    const req = m.resolvedRequestType!;
    const res = m.resolvedResponseType!;
    methods[m.name] = {
      path: `/${fullName}/${m.name}`,
      requestStream: !!m.requestStream,
      responseStream: !!m.responseStream,
      requestSerialize: serializer(req),
      requestDeserialize: deserializer(req, conversion),
      responseSerialize: serializer(res),
      responseDeserialize: deserializer(res, conversion),
      // As proto-loader: the client answers to the method's name and to its lowerCamelCase form.
      originalName: lowerFirst(m.name),
    };
  }
  return grpc.makeGenericClientConstructor(methods, fullName);
}
