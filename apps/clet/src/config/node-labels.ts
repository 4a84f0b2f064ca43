// ValidateKubeletFlags' --node-labels rules, with the product namespace `cl.io` in place of kubernetes.io.
import { isQualifiedName, isValidLabelValue } from './labels';

const ALLOWED_PREFIXES = ['clet.cl.io', 'node.cl.io'];
const ALLOWED_LABELS = [
  'beta.cl.io/arch',
  'beta.cl.io/instance-type',
  'beta.cl.io/os',
  'failure-domain.beta.cl.io/region',
  'failure-domain.beta.cl.io/zone',
  'cl.io/arch',
  'cl.io/hostname',
  'cl.io/os',
  'node.cl.io/instance-type',
  'topology.cl.io/region',
  'topology.cl.io/zone',
];
const ALLOWED_SET = new Set(ALLOWED_LABELS);

const namespaceOf = (key: string) => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');

/** A label in the product's reserved namespaces (`cl.io`, `*.cl.io`, and the upstream `k8s.io` ones). */
function isProductLabel(key: string): boolean {
  const ns = namespaceOf(key);
  return ns === 'cl.io' || ns.endsWith('.cl.io') || ns === 'k8s.io' || ns.endsWith('.k8s.io');
}

function isAllowed(key: string): boolean {
  if (ALLOWED_SET.has(key)) return true;
  const ns = namespaceOf(key);
  return ALLOWED_PREFIXES.some((p) => ns === p || ns.endsWith('.' + p));
}

/** Returns the error message, or null when the labels are acceptable. */
export function validateNodeLabels(labels: Record<string, string>): string | null {
  const unknown = Object.keys(labels)
    .filter((k) => isProductLabel(k) && !isAllowed(k))
    .sort();
  if (unknown.length > 0) {
    return (
      `unknown 'cl.io' or 'k8s.io' labels specified with --node-labels: [${unknown.join(' ')}]\n` +
      `--node-labels in the 'cl.io' namespace must begin with an allowed prefix (${ALLOWED_PREFIXES.join(', ')}) ` +
      `or be in the specifically allowed set (${ALLOWED_LABELS.join(', ')})`
    );
  }
  // Upstream keys this list by a Go map, so its order is random; sorting keeps the output stable.
  const invalid: string[] = [];
  for (const k of Object.keys(labels).sort()) {
    const keyErrs = isQualifiedName(k);
    if (keyErrs.length > 0) invalid.push(`'${k}' - ${keyErrs.join(', ')}`);
    const valErrs = isValidLabelValue(labels[k]);
    if (valErrs.length > 0) invalid.push(`'${labels[k]}' - ${valErrs.join(', ')}`);
  }
  return invalid.length > 0 ? `invalid node labels: ${invalid.join('; ')}` : null;
}
