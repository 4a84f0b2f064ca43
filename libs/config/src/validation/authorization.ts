// ValidateAuthorizationConfiguration (k8s.io/apiserver validation.go, 1.33). Webhook errors are rooted at
// the authorizer (`authorizers[0].timeout`), not at `.webhook`, exactly as upstream reports them.
import { compileMatchCondition } from '@cl/cel';
import { formatDuration } from '@cl/flags';
import { FieldPath, fieldErrors, GoLiteral, goQuote, type FieldError } from '../field';
import type { AuthorizationConfiguration, WebhookConfiguration } from '../types/authorization';
import { attachProgram, compileInto } from './cel-errors';
import { dns1123SubdomainErrors, goStat, goStringPtr, isAbsolute } from './common';

export interface AuthorizationValidationOptions {
  /** Authorizer types this server knows; kube-apiserver's set by default. */
  knownTypes?: readonly string[];
  /** Types that may appear more than once; `Webhook` by default. */
  repeatableTypes?: readonly string[];
}

export const KUBE_APISERVER_AUTHORIZER_TYPES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
const MAX_MATCH_CONDITIONS = 64;
const MAX_TIMEOUT_MS = 30_000;

export function validateAuthorizationConfiguration(
  c: AuthorizationConfiguration,
  opts: AuthorizationValidationOptions = {},
): FieldError[] {
  const known = opts.knownTypes ?? KUBE_APISERVER_AUTHORIZER_TYPES;
  const repeatable = opts.repeatableTypes ?? ['Webhook'];
  const errs: FieldError[] = [];
  const root = FieldPath.root('authorizers');
  const authorizers = c.authorizers ?? [];
  if (authorizers.length === 0) {
    errs.push(fieldErrors.required(root, 'at least one authorization mode must be defined'));
  }
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  authorizers.forEach((a, i) => {
    const p = root.index(i);
    const type = a.type ?? '';
    if (!type) return void errs.push(fieldErrors.required(p.child('type')));
    if (!known.includes(type)) {
      return void errs.push(fieldErrors.notSupported(p.child('type'), type, [...known].sort()));
    }
    if (seenTypes.has(type) && !repeatable.includes(type)) return void errs.push(fieldErrors.duplicate(p.child('type'), type));
    seenTypes.add(type);

    const name = a.name ?? '';
    const np = p.child('name');
    if (!name) errs.push(fieldErrors.required(np));
    else if (seenNames.has(name)) errs.push(fieldErrors.duplicate(np, name));
    else {
      const problems = dns1123SubdomainErrors(name);
      if (problems.length) errs.push(fieldErrors.invalid(np, name, `authorizer name is invalid: ${problems.join(', ')}`));
    }
    seenNames.add(name);

    if (type === 'Webhook') {
      if (!a.webhook) return void errs.push(fieldErrors.required(p.child('webhook'), 'required when type=Webhook'));
      errs.push(...validateWebhookConfiguration(p, a.webhook));
    } else if (a.webhook) {
      errs.push(fieldErrors.invalid(p.child('webhook'), 'non-null', 'may only be specified when type=Webhook'));
    }
  });
  return errs;
}

/** Durations print as Go's time.Duration.String() does. */
const dur = (ms: number) => formatDuration(ms);

export function validateWebhookConfiguration(p: FieldPath, w: WebhookConfiguration): FieldError[] {
  const errs: FieldError[] = [];
  const timeout = w.timeout ?? 0;
  if (timeout === 0) errs.push(fieldErrors.required(p.child('timeout')));
  else if (timeout > MAX_TIMEOUT_MS || timeout < 0) {
    errs.push(fieldErrors.invalid(p.child('timeout'), dur(timeout), 'must be > 0s and <= 30s'));
  }
  for (const f of ['authorizedTTL', 'unauthorizedTTL'] as const) {
    const v = w[f] ?? 0;
    if (v === 0) errs.push(fieldErrors.required(p.child(f)));
    else if (v < 0) errs.push(fieldErrors.invalid(p.child(f), dur(v), 'must be > 0s'));
  }

  const sarv = w.subjectAccessReviewVersion ?? '';
  if (!sarv) errs.push(fieldErrors.required(p.child('subjectAccessReviewVersion')));
  else if (sarv !== 'v1' && sarv !== 'v1beta1') {
    errs.push(fieldErrors.notSupported(p.child('subjectAccessReviewVersion'), sarv, ['v1', 'v1beta1']));
  }

  const conditions = w.matchConditions ?? [];
  const mcv = w.matchConditionSubjectAccessReviewVersion ?? '';
  const mcvp = p.child('matchConditionSubjectAccessReviewVersion');
  if (!mcv) {
    if (conditions.length > 0) errs.push(fieldErrors.required(mcvp, 'required if match conditions are specified'));
  } else if (mcv !== 'v1') errs.push(fieldErrors.notSupported(mcvp, mcv, ['v1']));

  const fp = w.failurePolicy ?? '';
  if (!fp) errs.push(fieldErrors.required(p.child('failurePolicy')));
  else if (fp !== 'NoOpinion' && fp !== 'Deny') errs.push(fieldErrors.notSupported(p.child('failurePolicy'), fp, ['NoOpinion', 'Deny']));

  const ci = w.connectionInfo ?? { type: '' };
  const cp = p.child('connectionInfo');
  const kcf = ci.kubeConfigFile ?? undefined;
  switch (ci.type ?? '') {
    case '':
      errs.push(fieldErrors.required(cp.child('type')));
      break;
    case 'InClusterConfig':
      if (kcf !== undefined) errs.push(fieldErrors.invalid(cp.child('kubeConfigFile'), kcf, 'can only be set when type=KubeConfigFile'));
      break;
    case 'KubeConfigFile': {
      const fp2 = cp.child('kubeConfigFile');
      if (!kcf) errs.push(fieldErrors.required(fp2));
      else if (!isAbsolute(kcf)) errs.push(fieldErrors.invalid(fp2, kcf, 'must be an absolute path'));
      else {
        const st = goStat(kcf);
        if (!st.ok) errs.push(fieldErrors.invalid(fp2, kcf, `error loading file: ${st.error}`));
        else if (!st.regular) errs.push(fieldErrors.invalid(fp2, kcf, 'must be a regular file'));
      }
      break;
    }
    default:
      errs.push(
        fieldErrors.notSupported(
          cp.child('type'),
          new GoLiteral(`apiserver.WebhookConnectionInfo{Type:${goQuote(ci.type)}, KubeConfigFile:${goStringPtr(kcf)}}`),
          ['InClusterConfig', 'KubeConfigFile'],
        ),
      );
  }

  const mp = p.child('matchConditions');
  if (conditions.length > MAX_MATCH_CONDITIONS) {
    errs.push(fieldErrors.tooMany(mp, conditions.length, MAX_MATCH_CONDITIONS));
    return errs;
  }
  const seen = new Set<string>();
  conditions.forEach((mc, j) => {
    const xp = mp.index(j).child('expression');
    const expr = mc.expression ?? '';
    if (!expr.trim()) return void errs.push(fieldErrors.required(xp));
    if (seen.has(expr)) return void errs.push(fieldErrors.duplicate(xp, expr));
    seen.add(expr);
    attachProgram(mc, compileInto(errs, xp, expr, compileMatchCondition, (e) => `must evaluate to bool but got ${e.outputType}`));
  });
  return errs;
}
