// ValidateTracingConfiguration (k8s.io/component-base/tracing/api/v1, 1.33). The API server validates with
// a nil path, so errors carry bare field names (`endpoint`, `samplingRatePerMillion`).
import { FieldPath, fieldErrors, type FieldError } from '../field';
import type { TracingConfiguration } from '../types/tracing';
import { goParseURL } from './common';

const SCHEMES = new Set(['dns', 'unix', 'unix-abstract']);

export function validateTracingConfiguration(c: TracingConfiguration, root?: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const at = (n: string) => (root ? root.child(n) : FieldPath.root(n));
  const rate = c.samplingRatePerMillion;
  if (rate !== undefined && rate !== null) {
    if (rate < 0) errs.push(fieldErrors.invalid(at('samplingRatePerMillion'), rate, 'sampling rate must be positive'));
    if (rate > 1_000_000) {
      errs.push(
        fieldErrors.invalid(at('samplingRatePerMillion'), rate, 'sampling rate per million must be less than or equal to one million'),
      );
    }
  }
  if (c.endpoint !== undefined && c.endpoint !== null) {
    // gRPC target syntax: no `//` means a plain host:port resolved by DNS
    const e = c.endpoint.includes('//') ? c.endpoint : `dns://${c.endpoint}`;
    const u = goParseURL(e);
    if ('error' in u) errs.push(fieldErrors.invalid(at('endpoint'), e, u.error));
    else if (!SCHEMES.has(u.scheme)) {
      errs.push(
        fieldErrors.invalid(
          at('endpoint'),
          e,
          `unsupported scheme: ${u.scheme}.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md`,
        ),
      );
    }
  }
  return errs;
}
