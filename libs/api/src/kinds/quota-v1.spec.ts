// LimitRange and ResourceQuota decoding: upstream's LimitRange item defaults, and a protobuf body of each.
import { decode } from '../decode';
import { decodeProtobuf } from '../protobuf';
import { limitRange, resourceQuota } from './quota-v1';

const limitsOf = (item: object) => (decode(limitRange, JSON.stringify({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr' }, spec: { limits: [item] } }), 'Strict').object.spec!.limits![0] as object);

test.each([
  ['max becomes the default limit and request', { type: 'Container', max: { cpu: '1' } }, { type: 'Container', max: { cpu: '1' }, default: { cpu: '1' }, defaultRequest: { cpu: '1' } }],
  ['the default limit becomes the default request', { type: 'Container', default: { memory: '1Gi' } }, { type: 'Container', default: { memory: '1Gi' }, defaultRequest: { memory: '1Gi' } }],
  ['min becomes the default request when there is no default', { type: 'Container', min: { cpu: '100m' } }, { type: 'Container', min: { cpu: '100m' }, default: {}, defaultRequest: { cpu: '100m' } }],
  [
    'what is written is kept',
    { type: 'Container', max: { cpu: '2' }, min: { cpu: '100m' }, default: { cpu: '1' }, defaultRequest: { cpu: '200m' } },
    { type: 'Container', max: { cpu: '2' }, min: { cpu: '100m' }, default: { cpu: '1' }, defaultRequest: { cpu: '200m' } },
  ],
  ['Pod items get no defaults', { type: 'Pod', max: { cpu: '2' } }, { type: 'Pod', max: { cpu: '2' } }],
])('LimitRange defaults: %s', (_name, item, expected) => {
  expect(limitsOf(item)).toEqual(expected);
});

/** A protobuf message field: tag, then a length-prefixed body (all test bodies are short). */
const field = (n: number, body: Buffer) => Buffer.concat([Buffer.from([(n << 3) | 2, body.length]), body]);
const text = (s: string) => Buffer.from(s);

test('a ResourceQuota in protobuf decodes by upstream field numbers', () => {
  // metadata{name=q} spec{hard{pods: 2}, scopes[NotTerminating]}
  const quantity = field(1, text('2'));
  const entry = Buffer.concat([field(1, text('pods')), field(2, quantity)]);
  const spec = Buffer.concat([field(1, entry), field(2, text('NotTerminating'))]);
  const body = Buffer.concat([field(1, field(1, text('q'))), field(2, spec)]);
  const wrapped = Buffer.concat([Buffer.from('k8s\0'), field(2, body)]);
  expect(decodeProtobuf(resourceQuota, wrapped)).toMatchObject({ metadata: { name: 'q' }, spec: { hard: { pods: '2' }, scopes: ['NotTerminating'] } });
});
