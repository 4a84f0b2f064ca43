import { decodePacket, encodePacket, PacketType, type Packet } from './konnectivity-packet';

// The example packets of the konnectivity protocol notes (protobuf message bytes, without gRPC framing).
const refused = 'dial tcp 10.0.0.5:10250: connect: connection refused';
test.each<[string, Packet, string]>([
  [
    'DIAL_REQ',
    { type: PacketType.DIAL_REQ, dialRequest: { protocol: 'tcp', address: '10.0.0.5:10250', random: 42n } },
    '1217 0a03746370 120e31302e302e302e353a3130323530 182a',
  ],
  ['DIAL_RSP', { type: PacketType.DIAL_RSP, dialResponse: { error: '', connectID: 7n, random: 42n } }, '0801 1a04 1007 182a'],
  [
    'DIAL_RSP with error',
    { type: PacketType.DIAL_RSP, dialResponse: { error: refused, connectID: 0n, random: 42n } },
    `0801 1a38 0a34${Buffer.from(refused).toString('hex')} 182a`,
  ],
  ['DATA', { type: PacketType.DATA, data: { connectID: 7n, error: '', data: Buffer.from('hello') } }, '0804 2209 0807 1a0568656c6c6f'],
  ['CLOSE_REQ', { type: PacketType.CLOSE_REQ, closeRequest: { connectID: 7n } }, '0802 2a02 0807'],
  ['CLOSE_RSP', { type: PacketType.CLOSE_RSP, closeResponse: { error: '', connectID: 7n } }, '0803 3202 1007'],
  ['DIAL_CLS', { type: PacketType.DIAL_CLS, closeDial: { random: 42n } }, '0805 3a02 082a'],
])('%s encodes to the upstream bytes and decodes back', (_name, packet, hex) => {
  const bytes = Buffer.from(hex.replace(/ /g, ''), 'hex');
  expect(encodePacket(packet).toString('hex')).toBe(bytes.toString('hex'));
  expect(decodePacket(bytes)).toEqual(packet);
});

test('a DATA packet with an error and a payload longer than 127 bytes uses multi-byte lengths', () => {
  const data = Buffer.alloc(200, 0xab);
  const packet: Packet = { type: PacketType.DATA, data: { connectID: 7n, error: 'bad', data } };
  const inner = `0807 1203${Buffer.from('bad').toString('hex')} 1ac801${data.toString('hex')}`.replace(/ /g, '');
  // inner is 2 + 5 + 203 = 210 bytes: length d2 01.
  const hex = `0804 22d201${inner}`.replace(/ /g, '');
  expect(encodePacket(packet).toString('hex')).toBe(hex);
  expect(decodePacket(Buffer.from(hex, 'hex'))).toEqual(packet);
});

test('a DATA packet without connection id or payload omits those fields', () => {
  const packet: Packet = { type: PacketType.DATA, data: { connectID: 0n, error: '', data: Buffer.alloc(0) } };
  expect(encodePacket(packet).toString('hex')).toBe('08042200');
  expect(decodePacket(encodePacket(packet))).toEqual(packet);
});

test('a dial id near 2^63 survives the round trip', () => {
  const random = (1n << 63n) - 1n;
  expect(decodePacket(encodePacket({ type: PacketType.DIAL_REQ, dialRequest: { protocol: 'tcp', address: 'a:1', random } })).dialRequest?.random).toBe(random);
});

test('a truncated packet is an error, not a crash', () => {
  expect(() => decodePacket(Buffer.from('2209 0807', 'hex'))).toThrow('truncated field');
});
