// SelfSubjectRulesReview status from RBAC (upstream pkg/registry/authorization/selfsubjectrulesreview and the
// RBAC authorizer's RulesFor): the user's rules in the namespace, split into resource and non-resource rules.
import type { UserInfo } from '@cl/auth';
import { aggregateText, type RuleResolver } from './authorizer';

export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

export interface RulesReviewStatus {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  incomplete: boolean;
  evaluationError?: string;
}

export function rulesReview(resolver: RuleResolver, user: UserInfo, namespace: string): RulesReviewStatus {
  const { rules, errors } = resolver.rulesFor(user, namespace);
  const resourceRules: ResourceRule[] = [];
  const nonResourceRules: NonResourceRule[] = [];
  for (const r of rules) {
    if (r.resources?.length) {
      resourceRules.push({ verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources, ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}) });
    }
    if (r.nonResourceURLs?.length) nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
  }
  const status: RulesReviewStatus = { resourceRules, nonResourceRules, incomplete: errors.length > 0 };
  if (errors.length > 0) status.evaluationError = aggregateText(errors);
  return status;
}
