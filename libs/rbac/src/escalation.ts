// Privilege escalation prevention (upstream pkg/registry/rbac/validation): a user may write a role, or a binding
// to a role, only with rules it already holds itself. Each rule of the role is broken down into single
// verb/resource/name atoms, and every atom must be covered by one of the user's own rules.
import type { UserInfo } from '@cl/auth';
import { aggregateText, type RuleResolver } from './authorizer';
import { compactString, goQuoteList } from './rules';
import type { PolicyRule } from './types';

const has = (set: readonly string[] | undefined, x: string) => (set ?? []).includes(x);
const hasAll = (set: readonly string[] | undefined, xs: readonly string[] | undefined) => (xs ?? []).every((x) => has(set, x));

/** upstream's BreakdownRule: one rule per (group, resource, verb[, name]) and per (nonResourceURL, verb). */
export function breakdownRule(r: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const g of r.apiGroups ?? []) {
    for (const res of r.resources ?? []) {
      for (const v of r.verbs) {
        if (r.resourceNames?.length) for (const n of r.resourceNames) out.push({ apiGroups: [g], resources: [res], verbs: [v], resourceNames: [n] });
        else out.push({ apiGroups: [g], resources: [res], verbs: [v] });
      }
    }
  }
  for (const u of r.nonResourceURLs ?? []) for (const v of r.verbs) out.push({ nonResourceURLs: [u], verbs: [v] });
  return out;
}

function resourcesCover(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (has(owner, '*') || hasAll(owner, wanted)) return true;
  for (const path of wanted ?? []) {
    if (has(owner, path)) continue;
    // `*/status` held covers any resource's status subresource.
    const slash = path.indexOf('/');
    if (slash < 0 || !has(owner, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

const urlCovers = (owner: string, path: string) => owner === path || (owner.endsWith('*') && path.startsWith(owner.replace(/\*+$/, '')));

function urlsCover(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  return (wanted ?? []).every((p) => (owner ?? []).some((o) => urlCovers(o, p)));
}

/** upstream's ruleCovers: whether `owner` grants everything the single-atom `sub` does. */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const names = sub.resourceNames?.length ? !owner.resourceNames?.length || hasAll(owner.resourceNames, sub.resourceNames) : !owner.resourceNames?.length;
  return verbs && groups && resourcesCover(owner.resources, sub.resources) && names && urlsCover(owner.nonResourceURLs, sub.nonResourceURLs);
}

/** upstream's Covers: whether `owner` rules hold all of `servant`, and the atoms they miss. */
export function covers(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing = servant.flatMap(breakdownRule).filter((sub) => !owner.some((o) => ruleCovers(o, sub)));
  return { covered: missing.length === 0, missing };
}

/** upstream's CompactRules: single group/resource rules that differ only in verbs merged into one. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple = !r.nonResourceURLs?.length && (r.resourceNames?.length ?? 0) <= 1 && r.apiGroups?.length === 1 && r.resources?.length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0], r.resourceNames?.[0] ?? null]);
    const existing = simple.get(key);
    if (existing) existing.verbs = [...existing.verbs, ...r.verbs];
    else simple.set(key, { ...r, verbs: [...r.verbs] });
  }
  return [...out, ...simple.values()];
}

/** Thrown when a write would grant rules the user lacks; the registry answers it with a 403 Forbidden. */
export class EscalationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EscalationError';
  }
}

/**
 * upstream's ConfirmNoEscalation: throws EscalationError with upstream's text
 * (`user "u" (groups=["g"]) is attempting to grant RBAC permissions not currently held:\n{...}`).
 */
export function confirmNoEscalation(resolver: RuleResolver, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): void {
  const own = resolver.rulesFor(user, namespace);
  const { covered, missing } = covers(own.rules, rules);
  if (covered) return;
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(user.username)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (own.errors.length > 0) msg += `; resolution errors: ${aggregateText(own.errors)}`;
  throw new EscalationError(msg);
}
