import { type Attributes, type Context, type Link, type SpanKind } from '@opentelemetry/api';
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, SamplingDecision, type Sampler, type SamplingResult } from '@opentelemetry/sdk-trace-base';

/**
 * Go's TraceIDRatioBased (otel-go sdk/trace/sampling.go): sampled iff the last 8 bytes of the trace id, read big
 * endian and shifted right by one, are below `uint64(fraction * 2^63)`. The JS SDK hashes differently, so the same
 * trace would be sampled by one API server and not the other without this.
 */
export class GoTraceIdRatioSampler implements Sampler {
  private readonly bound: bigint;

  constructor(private readonly fraction: number) {
    // The product is an exact integer-valued double once >= 2^53, so truncating via BigInt matches Go's conversion.
    this.bound = fraction <= 0 ? 0n : BigInt(Math.trunc(fraction * 2 ** 63));
  }

  shouldSample(_context: Context, traceId: string, _name: string, _kind: SpanKind, _attributes: Attributes, _links: Link[]): SamplingResult {
    const x = BigInt(`0x${traceId.slice(16, 32)}`) >> 1n;
    return { decision: x < this.bound ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD };
  }

  toString(): string {
    return `TraceIDRatioBased{${this.fraction}}`;
  }
}

/** The upper bound Go computes for a rate per million (exposed for tests and docs). */
export function ratioBound(samplingRatePerMillion: number): bigint {
  return BigInt(Math.trunc((samplingRatePerMillion / 1e6) * 2 ** 63));
}

/**
 * component-base's sampler: ParentBased(root), root = never when the rate is unset or 0, always at one million,
 * otherwise Go's trace-id ratio.
 */
export function createSampler(samplingRatePerMillion?: number): Sampler {
  let root: Sampler;
  if (!samplingRatePerMillion || samplingRatePerMillion <= 0) root = new AlwaysOffSampler();
  else if (samplingRatePerMillion >= 1_000_000) root = new AlwaysOnSampler();
  else root = new GoTraceIdRatioSampler(samplingRatePerMillion / 1e6);
  return new ParentBasedSampler({ root });
}
