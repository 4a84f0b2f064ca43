// coordination.k8s.io/v1 leases: holder and durations checked as upstream, printed with their holder.
import { fieldErrors, FieldPath, type FieldError, type KubeObject } from '@cl/apimachinery';
import type { Strategy } from '../strategy';
import { AGE, ageOf, column } from './columns';

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  leaseTransitions?: number;
}

const spec = (o: KubeObject) => ((o as { spec?: LeaseSpec }).spec ?? {}) as LeaseSpec;

function validateLease(o: KubeObject): FieldError[] {
  const s = spec(o);
  const errs: FieldError[] = [];
  if (s.leaseDurationSeconds !== undefined && s.leaseDurationSeconds <= 0) errs.push(fieldErrors.invalid(FieldPath.root('spec', 'leaseDurationSeconds'), s.leaseDurationSeconds, 'must be greater than 0'));
  if (s.leaseTransitions !== undefined && s.leaseTransitions < 0) errs.push(fieldErrors.invalid(FieldPath.root('spec', 'leaseTransitions'), s.leaseTransitions, 'must be greater than or equal to 0'));
  return errs;
}

export const leaseStrategy: Strategy = {
  validate: validateLease,
  table: {
    columns: [column('Holder', 'string', 'The holder of the lease'), AGE],
    cells: (o, now) => [spec(o).holderIdentity ?? '', ageOf(o, now)],
  },
};
