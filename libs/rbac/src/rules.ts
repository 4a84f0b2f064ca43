// Whether one PolicyRule grants a request, as upstream's rbac/v1 helpers (VerbMatches, APIGroupMatches,
// ResourceMatches, ResourceNameMatches, NonResourceURLMatches): `*` matches anything, `*/sub` any resource's
// subresource `sub`, `res/sub` one subresource, a nonResourceURL ending in `*` a path prefix.
import type { Attributes } from '@cl/auth';
import type { PolicyRule } from './types';

export const ALL = '*';

// Plain loops: these run for every rule of every binding of the user on each request.
function containsOrAll(list: readonly string[] | undefined, x: string): boolean {
  if (!list) return false;
  for (let i = 0; i < list.length; i++) if (list[i] === ALL || list[i] === x) return true;
  return false;
}

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return containsOrAll(rule.verbs, verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return containsOrAll(rule.apiGroups, group);
}

/** `resource` and `subresource` as the request names them; a rule's `pods` does not cover `pods/log`. */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true;
    // `*/scale` covers every resource's scale subresource, but not the resource itself.
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

/** An empty list means every name; a name-less request (list, create) only matches an empty list. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  const urls = rule.nonResourceURLs;
  if (!urls) return false;
  for (let i = 0; i < urls.length; i++) {
    const u = urls[i];
    if (u === ALL || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** The request parts a rule is checked against (upstream's authorizer.Attributes, minus the user). */
export type RuleRequest = Pick<Attributes, 'verb' | 'isResourceRequest' | 'path' | 'apiGroup' | 'resource' | 'subresource' | 'name'>;

/** upstream's RuleAllows. */
export function ruleAllows(req: RuleRequest, rule: PolicyRule): boolean {
  if (req.isResourceRequest) {
    return verbMatches(rule, req.verb) && apiGroupMatches(rule, req.apiGroup) && resourceMatches(rule, req.resource, req.subresource) && resourceNameMatches(rule, req.name);
  }
  return verbMatches(rule, req.verb) && nonResourceURLMatches(rule, req.path);
}

export function rulesAllow(req: RuleRequest, rules: readonly PolicyRule[]): boolean {
  for (let i = 0; i < rules.length; i++) if (ruleAllows(req, rules[i])) return true;
  return false;
}

/** Go's %q of a []string: `["a" "b"]`. */
export const goQuoteList = (xs: readonly string[]): string => `[${xs.map((x) => JSON.stringify(x)).join(' ')}]`;

/** upstream's PolicyRule.CompactString: `{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${goQuoteList(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${goQuoteList(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuoteList(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${goQuoteList(r.resourceNames)}`);
  if (r.verbs?.length) parts.push(`Verbs:${goQuoteList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}
