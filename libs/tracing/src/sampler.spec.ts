import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace-base';
import { createSampler, ratioBound } from './sampler';

test.each([
  [1, 9223372036854n],
  [100, 922337203685477n],
  [250000, 0x2000000000000000n],
  [500000, 0x4000000000000000n],
  [999999, 0x7ffff79c842fa400n],
])('rate %d per million has Go’s upper bound', (rate, bound) => {
  expect(ratioBound(rate)).toBe(bound);
});

const decide = (rate: number | undefined, traceId: string, parent = ROOT_CONTEXT) =>
  createSampler(rate).shouldSample(parent, traceId, 'x', SpanKind.SERVER, {}, []).decision;
const SAMPLED = SamplingDecision.RECORD_AND_SAMPLED;
const DROPPED = SamplingDecision.NOT_RECORD;

test.each([
  ['a low id at 50%', 500000, '4bf92f3577b34da603ce929d0e0e4736', SAMPLED],
  ['a high id at 50%', 500000, '4bf92f3577b34da6a3ce929d0e0e4736', DROPPED],
  ['the first 8 bytes do not count', 500000, 'ffffffffffffffff03ce929d0e0e4736', SAMPLED],
  ['any id at one million', 1000000, 'ffffffffffffffffffffffffffffffff', SAMPLED],
  ['no rate', undefined, '00000000000000000000000000000001', DROPPED],
  ['rate 0', 0, '00000000000000000000000000000001', DROPPED],
  ['the smallest id at rate 1', 1, '00000000000000000000000000000001', SAMPLED],
] as const)('root spans: %s', (_name, rate, traceId, decision) => {
  expect(decide(rate, traceId)).toBe(decision);
});

test.each([
  ['sampled remote parent, no rate', undefined, TraceFlags.SAMPLED, SAMPLED],
  ['unsampled remote parent, rate one million', 1000000, TraceFlags.NONE, DROPPED],
] as const)('a parent decides: %s', (_name, rate, flags, decision) => {
  const parent = trace.setSpanContext(ROOT_CONTEXT, { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: flags, isRemote: true });
  expect(decide(rate, '4bf92f3577b34da6a3ce929d0e0e4736', parent)).toBe(decision);
});
