// Resource names as upstream classifies them (pkg/apis/core/helper): which names containers may ask for, which a
// quota may limit, which are counted in whole units, and the field errors of a bad name in a LimitRange or a
// ResourceQuota (pkg/apis/core/validation).
import { fieldErrors, FieldPath, isQualifiedName, parseQuantity, QuantityError, type FieldError, type Quantity } from '@cl/apimachinery';

const HUGE_PAGES = 'hugepages-';
const REQUESTS = 'requests.';

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);

const STANDARD_QUOTA_RESOURCES = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers',
  'secrets', 'persistentvolumeclaims', 'configmaps', 'services.nodeports', 'services.loadbalancers',
]);

const STANDARD_RESOURCES = new Set([...STANDARD_QUOTA_RESOURCES, 'storage']);

/** Object counts: a quota of them must be a whole number. */
const INTEGER_RESOURCES = new Set(['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);

export const LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];

export const isHugePageResourceName = (name: string) => name.startsWith(HUGE_PAGES);
const isQuotaHugePageResourceName = (name: string) => name.startsWith(HUGE_PAGES) || name.startsWith(REQUESTS + HUGE_PAGES);

/** In the kubernetes.io namespace: unprefixed names are. */
export const isNativeResource = (name: string) => !name.includes('/') || name.includes('kubernetes.io/');

/** A device or other resource outside kubernetes.io, whose quota name `requests.<name>` is a qualified name. */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith(REQUESTS)) return false;
  return isQualifiedName(REQUESTS + name).length === 0;
}

export const isStandardContainerResourceName = (name: string) => STANDARD_CONTAINER_RESOURCES.has(name) || isHugePageResourceName(name);
export const isStandardQuotaResourceName = (name: string) => STANDARD_QUOTA_RESOURCES.has(name) || isQuotaHugePageResourceName(name);
export const isStandardResourceName = (name: string) => STANDARD_RESOURCES.has(name) || isQuotaHugePageResourceName(name);
export const isIntegerResourceName = (name: string) => INTEGER_RESOURCES.has(name) || isExtendedResourceName(name);
/** Whether a request below the limit makes sense (not for hugepages and extended resources). */
export const isOvercommitAllowed = (name: string) => isNativeResource(name) && !isHugePageResourceName(name);

/** A qualified name; unprefixed, one the system knows. */
export function validateResourceName(name: string, path: FieldPath): FieldError[] {
  const errs = isQualifiedName(name).map((m) => fieldErrors.invalid(path, name, m));
  if (errs.length) return errs;
  if (!name.includes('/') && !isStandardResourceName(name)) return [fieldErrors.invalid(path, name, 'must be a standard resource type or fully qualified')];
  return [];
}

export function validateContainerResourceName(name: string, path: FieldPath): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/')) {
    if (!isStandardContainerResourceName(name)) errs.push(fieldErrors.invalid(path, name, 'must be a standard resource for containers'));
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    errs.push(fieldErrors.invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

export function validateResourceQuotaResourceName(name: string, path: FieldPath): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/') && !isStandardQuotaResourceName(name)) errs.push(fieldErrors.invalid(path, name, 'must be a standard resource for quota'));
  return errs;
}

/**
 * A quantity read from a resource list, or a field error. Upstream rejects an unparsable quantity while
 * decoding; here it is a field error at its key, like the pod's resources.
 */
export function quantityAt(raw: unknown, path: FieldPath, errs: FieldError[]): Quantity | undefined {
  try {
    return parseQuantity(raw);
  } catch (e) {
    if (!(e instanceof QuantityError)) throw e;
    errs.push(fieldErrors.invalid(path, String(raw), e.message));
    return undefined;
  }
}

/** Upstream's ValidateResourceQuantityValue: not negative, and whole for object counts. */
export function validateQuotaQuantity(name: string, q: Quantity, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (q.sign() < 0) errs.push(fieldErrors.invalid(path, q.toString(), 'must be greater than or equal to 0'));
  if (isIntegerResourceName(name) && q.milliValue() % 1000n !== 0n) errs.push(fieldErrors.invalid(path, q.toString(), 'must be an integer'));
  return errs;
}
