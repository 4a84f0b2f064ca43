import type { MethodDefinition, ServiceClientConstructor } from '@grpc/grpc-js';
import { Root } from 'protobufjs/light';
import { serviceClientsFromJson, type ProtoJson } from './service-from-json';

const json = require('../proto/cri-subset.json') as ProtoJson;
const conversion = { longs: String, enums: String, defaults: true, arrays: true, objects: false, oneofs: false };
const method = (ctor: ServiceClientConstructor, name: string) => (ctor.service as unknown as Record<string, MethodDefinition<object, object>>)[name];

// A request reaching many definitions: nested messages, maps, repeated fields, a 64-bit integer, a top-level
// enum and an enum nested in a message (SecurityProfile.ProfileType).
const runPodSandbox = {
  config: {
    metadata: { name: 'web', uid: 'u1', namespace: 'default', attempt: 2 },
    hostname: 'web',
    logDirectory: '/var/log/pods/x',
    dnsConfig: { servers: ['10.0.0.10'], searches: ['svc'], options: ['ndots:5'] },
    portMappings: [{ protocol: 'UDP', containerPort: 53, hostPort: 5353, hostIp: '127.0.0.1' }],
    labels: { app: 'web' },
    annotations: { a: 'b' },
    linux: {
      cgroupParent: '/kubepods/pod1',
      securityContext: { namespaceOptions: { network: 'NODE' }, seccomp: { profileType: 'Localhost', localhostRef: '/p.json' }, runAsUser: { value: '1000' } },
      overhead: { cpuPeriod: '100000', memoryLimitInBytes: '9007199254740993' },
    },
  },
  runtimeHandler: 'runc',
};

test('a request encodes to the bytes the whole descriptor gives, and decodes back to the same object', () => {
  const [runtime] = serviceClientsFromJson(json, ['runtime.v1.RuntimeService'], conversion);
  const m = method(runtime, 'RunPodSandbox');
  const whole = Root.fromJSON(json).lookupType('runtime.v1.RunPodSandboxRequest');
  const want = Buffer.from(whole.encode(whole.fromObject(runPodSandbox)).finish());
  const got = m.requestSerialize(runPodSandbox);
  expect(got.equals(want)).toBe(true);
  expect(m.requestDeserialize(got)).toStrictEqual(whole.toObject(whole.decode(want), conversion));
  expect(m.requestDeserialize(got)).toMatchObject({ config: { linux: { securityContext: { seccomp: { profileType: 'Localhost' } }, overhead: { memoryLimitInBytes: '9007199254740993' } } } });
});

test('every method of both services encodes and decodes an empty message, and answers to its lowerCamelCase name', () => {
  const ctors = serviceClientsFromJson(json, ['runtime.v1.RuntimeService', 'runtime.v1.ImageService'], conversion);
  const services = json.nested!.runtime as ProtoJson;
  const v1 = (services.nested!.v1 as ProtoJson).nested as Record<string, { methods?: Record<string, unknown> }>;
  for (const [i, name] of ['RuntimeService', 'ImageService'].entries()) {
    const names = Object.keys(v1[name].methods!);
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) {
      const m = method(ctors[i], n);
      expect(m.path).toBe(`/runtime.v1.${name}/${n}`);
      expect(m.originalName).toBe(n.charAt(0).toLowerCase() + n.slice(1));
      expect(m.responseDeserialize(m.responseSerialize({}))).toBeInstanceOf(Object);
      expect(m.requestDeserialize(m.requestSerialize({}))).toBeInstanceOf(Object);
    }
  }
});

test('a descriptor with package-qualified type names is loaded whole and still works', () => {
  const qualified = {
    nested: { p: { nested: { A: { fields: { b: { type: 'p.B', id: 1 } } }, B: { fields: { x: { type: 'string', id: 1 } } }, S: { methods: { Get: { requestType: 'p.A', responseType: 'B' } } } } } },
  } as unknown as ProtoJson;
  const [s] = serviceClientsFromJson(qualified, ['p.S'], conversion);
  const m = method(s, 'Get');
  expect(m.requestDeserialize(m.requestSerialize({ b: { x: 'y' } }))).toStrictEqual({ b: { x: 'y' } });
});
