// Webhook matchConditions (k8s.io/apiserver pkg/authorization/cel matcher.go): evaluated in order over the
// v1 SubjectAccessReviewSpec as `request`; a FALSE stops at once and skips the webhook, errors are collected
// and, when nothing was FALSE, returned together; all TRUE calls the webhook.
import { aggregate } from '@cl/auth';
import { compileMatchCondition, type CelProgram, type CelSubjectAccessReviewSpec } from '@cl/cel';
import { authorizationMetrics, nowSeconds } from './metrics';
import type { SubjectAccessReviewSpec } from './sar';

export interface MatchConditionInput {
  expression: string;
  /** Set by @cl/config's validation; compiled here when absent. */
  readonly compiled?: CelProgram<boolean>;
}

export type MatchOutcome = { match: true; error?: undefined } | { match: false; error?: Error };

const RESOURCE_FIELDS = ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'] as const;

export class MatchConditions {
  private readonly programs: CelProgram<boolean>[];
  /** Selectors are only built into `request` when some expression mentions them, as upstream. */
  private readonly usesSelectors: boolean;
  private readonly metrics = {
    errors: authorizationMetrics.matchConditionErrors(),
    exclusions: authorizationMetrics.matchConditionExclusions(),
    seconds: authorizationMetrics.matchConditionSeconds(),
  };

  constructor(
    conditions: readonly MatchConditionInput[],
    private readonly labels: { type: string; name: string },
  ) {
    this.programs = conditions.map((c) => c.compiled ?? compileMatchCondition(c.expression));
    this.usesSelectors = conditions.some((c) => /fieldSelector|labelSelector/.test(c.expression));
  }

  get size(): number {
    return this.programs.length;
  }

  evaluate(spec: SubjectAccessReviewSpec): MatchOutcome {
    const started = nowSeconds();
    const request = this.celRequest(spec);
    const errors: Error[] = [];
    let excluded = false;
    for (const p of this.programs) {
      let v: boolean;
      try {
        v = p.evaluate({ request });
      } catch (e) {
        errors.push(new Error(`cel evaluation error: expression '${p.expression}' resulted in error: ${(e as Error).message}`));
        continue;
      }
      if (v !== true) {
        excluded = true;
        break;
      }
    }
    this.metrics.seconds.observe(this.labels, nowSeconds() - started);
    if (errors.length > 0) this.metrics.errors.inc(this.labels);
    if (excluded) {
      this.metrics.exclusions.inc(this.labels);
      return { match: false };
    }
    const err = aggregate(errors);
    return err ? { match: false, error: err } : { match: true };
  }

  /** user, groups, extra and uid always present; the attributes object present only for its kind of request. */
  private celRequest(spec: SubjectAccessReviewSpec): CelSubjectAccessReviewSpec {
    const request: CelSubjectAccessReviewSpec = {
      user: spec.user ?? '',
      groups: spec.groups ?? [],
      extra: spec.extra ?? {},
      uid: spec.uid ?? '',
    };
    const ra = spec.resourceAttributes;
    if (ra) {
      const out: NonNullable<CelSubjectAccessReviewSpec['resourceAttributes']> = {};
      for (const f of RESOURCE_FIELDS) out[f] = ra[f] ?? '';
      if (this.usesSelectors) {
        if (ra.fieldSelector) out.fieldSelector = { rawSelector: '', requirements: ra.fieldSelector.requirements ?? [] };
        if (ra.labelSelector) out.labelSelector = { rawSelector: '', requirements: ra.labelSelector.requirements ?? [] };
      }
      request.resourceAttributes = out;
    }
    if (spec.nonResourceAttributes) {
      request.nonResourceAttributes = { path: spec.nonResourceAttributes.path ?? '', verb: spec.nonResourceAttributes.verb ?? '' };
    }
    return request;
  }
}
