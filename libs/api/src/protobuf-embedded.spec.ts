// Protobuf bodies of pods whose Go structs inline others (volume sources, probe handlers): their fields decode as if written at the outer level.
import { decodeProtobuf } from './protobuf';
import { pod } from './kinds/pod-v1';
const uvarint = (n: number): Buffer => { const out: number[] = []; for (; n >= 0x80; n = Math.floor(n / 128)) out.push((n & 0x7f) | 0x80); out.push(n); return Buffer.from(out); };
const tag = (f: number, w: number) => uvarint(f * 8 + w);
const str = (f: number, s: string) => Buffer.concat([tag(f, 2), uvarint(Buffer.byteLength(s)), Buffer.from(s)]);
const msg = (f: number, ...p: Buffer[]) => { const b = Buffer.concat(p); return Buffer.concat([tag(f, 2), uvarint(b.length), b]); };
const varint = (f: number, n: number) => Buffer.concat([tag(f, 0), uvarint(n)]);
const envelope = (kind: string, raw: Buffer) => Buffer.concat([Buffer.from('k8s\0', 'binary'), msg(1, str(1, 'v1'), str(2, kind)), msg(2, raw)]);
test('inline structs decode flat', () => {
  const container = Buffer.concat([
    str(1, 'c'),
    msg(7, str(1, 'A'), msg(3, msg(3, msg(1, str(1, 'cm')), str(2, 'k')))),
    msg(10, msg(1, msg(2, str(1, '/h'), msg(2, varint(2, 8080)))), varint(4, 10)),
  ]);
  const ephemeral = Buffer.concat([msg(1, str(1, 'd'), str(2, 'busybox'), str(3, 'sh')), str(2, 'c')]);
  const volume = Buffer.concat([str(1, 'v'), msg(2, msg(19, msg(1, str(1, 'cm')), varint(3, 420)))]);
  const raw = Buffer.concat([msg(1, str(1, 'p')), msg(2, msg(1, volume), msg(2, container), msg(34, ephemeral))]);
  expect(decodeProtobuf(pod, envelope('Pod', raw))).toEqual({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
    spec: {
      volumes: [{ name: 'v', configMap: { name: 'cm', defaultMode: 420 } }],
      containers: [{ name: 'c', env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } }], livenessProbe: { httpGet: { path: '/h', port: 8080 }, periodSeconds: 10 } }],
      ephemeralContainers: [{ name: 'd', image: 'busybox', command: ['sh'], targetContainerName: 'c' }],
    },
  });
});
