// LimitRanges as kube-apiserver's registry treats them: validated as upstream's ValidateLimitRange (known types
// and resource names, quantities, min <= defaultRequest <= default <= max, ratios), printed NAME and CREATED AT.
import { fieldErrors, FieldPath, isQualifiedName, type FieldError, type KubeObject, type Quantity } from '@cl/apimachinery';
import type { LimitRangeItem } from '@cl/api';
import type { Strategy } from '../strategy';
import { column } from './columns';
import { isOvercommitAllowed, LIMIT_TYPES, quantityAt, validateContainerResourceName, validateResourceName } from '@cl/api';

const itemsOf = (o: KubeObject) => ((o as { spec?: { limits?: Array<LimitRangeItem | null> } }).spec?.limits ?? []).filter((i): i is LimitRangeItem => !!i);

function validateLimitType(type: string, path: FieldPath): FieldError[] {
  const errs = isQualifiedName(type).map((m) => fieldErrors.invalid(path, type, m));
  if (errs.length) return errs;
  if (!type.includes('/') && !LIMIT_TYPES.includes(type)) return [fieldErrors.invalid(path, type, 'must be a standard limit type or fully qualified')];
  return [];
}

/** The quantities of one map of an item, with their names checked for the item's type. */
function readMap(item: LimitRangeItem, field: keyof LimitRangeItem & string, path: FieldPath, errs: FieldError[], names: Set<string>): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  const checkName = item.type === 'Pod' || item.type === 'Container' ? validateContainerResourceName : validateResourceName;
  for (const [name, raw] of Object.entries((item[field] as Record<string, unknown> | undefined) ?? {})) {
    const p = path.child(field).key(name);
    errs.push(...checkName(name, p));
    names.add(name);
    const q = quantityAt(raw, p, errs);
    if (q) out.set(name, q);
  }
  return out;
}

const ratioText = (n: number) => n.toFixed(6);

function validateItem(item: LimitRangeItem, path: FieldPath, errs: FieldError[]) {
  const names = new Set<string>();
  const max = readMap(item, 'max', path, errs, names);
  const min = readMap(item, 'min', path, errs, names);
  let defaults = new Map<string, Quantity>();
  let defaultRequests = new Map<string, Quantity>();
  if (item.type === 'Pod') {
    if (Object.keys(item.default ?? {}).length) errs.push(fieldErrors.forbidden(path.child('default'), "may not be specified when `type` is 'Pod'"));
    if (Object.keys(item.defaultRequest ?? {}).length) errs.push(fieldErrors.forbidden(path.child('defaultRequest'), "may not be specified when `type` is 'Pod'"));
  } else {
    defaults = readMap(item, 'default', path, errs, names);
    defaultRequests = readMap(item, 'defaultRequest', path, errs, names);
  }
  if (item.type === 'PersistentVolumeClaim' && !min.has('storage') && !max.has('storage')) {
    errs.push(fieldErrors.required(path.child('limits'), 'either minimum or maximum storage value is required, but neither was provided'));
  }
  const ratios = readMap(item, 'maxLimitRequestRatio', path, errs, names);

  // The orderings upstream requires, one resource at a time (sorted here, where upstream's map order is random).
  for (const name of [...names].sort()) {
    const lo = min.get(name);
    const hi = max.get(name);
    const def = defaults.get(name);
    const req = defaultRequests.get(name);
    const ratio = ratios.get(name);
    const at = (field: string) => path.child(field).key(name);
    if (lo && hi && lo.cmp(hi) > 0) errs.push(fieldErrors.invalid(at('min'), lo.toString(), `min value ${lo} is greater than max value ${hi}`));
    if (req && lo && lo.cmp(req) > 0) errs.push(fieldErrors.invalid(at('defaultRequest'), req.toString(), `min value ${lo} is greater than default request value ${req}`));
    if (req && hi && req.cmp(hi) > 0) errs.push(fieldErrors.invalid(at('defaultRequest'), req.toString(), `default request value ${req} is greater than max value ${hi}`));
    if (req && def && req.cmp(def) > 0) errs.push(fieldErrors.invalid(at('defaultRequest'), req.toString(), `default request value ${req} is greater than default limit value ${def}`));
    if (def && lo && lo.cmp(def) > 0) errs.push(fieldErrors.invalid(at('default'), lo.toString(), `min value ${lo} is greater than default value ${def}`));
    if (def && hi && def.cmp(hi) > 0) errs.push(fieldErrors.invalid(at('default'), hi.toString(), `default value ${def} is greater than max value ${hi}`));
    if (ratio && ratio.milliValue() < 1000n) errs.push(fieldErrors.invalid(at('maxLimitRequestRatio'), ratio.toString(), `ratio ${ratio} is less than 1`));
    if (ratio && lo && hi && !lo.isZero()) {
      const limit = Number(hi.milliValue()) / Number(lo.milliValue());
      if (Number(ratio.milliValue()) / 1000 > limit) errs.push(fieldErrors.invalid(at('maxLimitRequestRatio'), ratio.toString(), `ratio ${ratio} is greater than max/min = ${ratioText(limit)}`));
    }
    // Hugepages and extended resources cannot be overcommitted: their default request is their default limit.
    if (!isOvercommitAllowed(name) && def && req && def.cmp(req) !== 0) {
      errs.push(fieldErrors.invalid(at('defaultRequest'), req.toString(), `default value ${def} must equal to defaultRequest value ${req} in ${name}`));
    }
  }
}

export function validateLimitRange(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  const limits = FieldPath.root('spec', 'limits');
  for (const [i, item] of itemsOf(o).entries()) {
    const path = limits.index(i);
    const type = item.type ?? '';
    errs.push(...validateLimitType(type, path.child('type')));
    if (seen.has(type)) errs.push(fieldErrors.duplicate(path.child('type'), type));
    seen.add(type);
    validateItem(item, path, errs);
  }
  return errs;
}

export const limitRangeStrategy: Strategy = {
  validate: validateLimitRange,
  table: {
    columns: [column('Created At', 'date', 'When the object was created (metadata.creationTimestamp).')],
    cells: (o) => [o.metadata?.creationTimestamp ?? null],
  },
};
