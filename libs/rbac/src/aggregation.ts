// Aggregated cluster roles (upstream pkg/controller/clusterroleaggregation): a cluster role with an aggregationRule
// holds the union of the rules of every other cluster role one of its selectors matches, taken in name order,
// each distinct rule once. The controller that writes the result lives with the store (apps/apiserver).
import type { ClusterRole, LabelSelectorLite, PolicyRule } from './types';

export function selectorMatches(sel: LabelSelectorLite, labels: Record<string, string> = {}): boolean {
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    const ok =
      e.operator === 'In' ? has && (e.values ?? []).includes(labels[e.key])
      : e.operator === 'NotIn' ? !has || !(e.values ?? []).includes(labels[e.key])
      : e.operator === 'Exists' ? has
      : e.operator === 'DoesNotExist' ? !has
      : false;
    if (!ok) return false;
  }
  return true;
}

const ruleKey = (r: PolicyRule) => JSON.stringify([r.verbs, r.apiGroups ?? [], r.resources ?? [], r.resourceNames ?? [], r.nonResourceURLs ?? []]);

/** The rules `role` should hold, or undefined when it is not an aggregated role. */
export function aggregatedRules(role: ClusterRole, all: Iterable<ClusterRole>): PolicyRule[] | undefined {
  const selectors = role.aggregationRule?.clusterRoleSelectors;
  if (!selectors) return undefined;
  const matches = [...all]
    .filter((c) => c.metadata.name !== role.metadata.name && selectors.some((s) => selectorMatches(s, c.metadata.labels)))
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
  const seen = new Set<string>();
  const rules: PolicyRule[] = [];
  for (const c of matches) {
    for (const r of c.rules ?? []) {
      const k = ruleKey(r);
      if (seen.has(k)) continue;
      seen.add(k);
      rules.push(r);
    }
  }
  return rules;
}

/** Whether two rule lists are the same rules in the same order. */
export const sameRules = (a: readonly PolicyRule[] = [], b: readonly PolicyRule[] = []) => a.length === b.length && a.every((r, i) => ruleKey(r) === ruleKey(b[i]));
