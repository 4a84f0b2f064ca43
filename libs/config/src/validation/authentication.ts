// ValidateAuthenticationConfiguration (k8s.io/apiserver validation.go, 1.33), rule for rule and in the
// same emission order, so that the error list matches kube-apiserver's.
import { X509Certificate } from 'node:crypto';
import {
  compileClaimMapping,
  compileClaimValidationRule,
  compileUserValidationRule,
  selectsField,
  type CelProgram,
} from '@cl/cel';
import { FieldPath, fieldErrors, GoLiteral, goQuote, type FieldError } from '../field';
import type {
  AuthenticationConfiguration,
  ClaimMappings,
  ClaimValidationRule,
  Issuer,
  JWTAuthenticator,
  UserValidationRule,
} from '../types/authentication';
import { attachProgram, compileInto } from './cel-errors';
import { dns1123SubdomainErrors, goParseURL } from './common';

export interface AuthenticationValidationOptions {
  /** `--service-account-issuer` values: JWT issuers may not reuse them. */
  disallowedIssuers?: readonly string[];
  featureGates?: {
    StructuredAuthenticationConfiguration?: boolean;
    AnonymousAuthConfigurableEndpoints?: boolean;
  };
}

const MAX_JWT = 64;
const SAE = 'StructuredAuthenticationConfiguration';
const NOT_SUPPORTED = `not supported when ${SAE} feature gate is disabled`;

export function validateAuthenticationConfiguration(
  c: AuthenticationConfiguration,
  opts: AuthenticationValidationOptions = {},
): FieldError[] {
  const errs: FieldError[] = [];
  const sae = opts.featureGates?.StructuredAuthenticationConfiguration ?? true;
  const root = FieldPath.root('jwt');
  const jwts = c.jwt ?? [];
  if (jwts.length > MAX_JWT) {
    errs.push(fieldErrors.tooMany(root, jwts.length, MAX_JWT));
    return errs;
  }
  const seenIssuers = new Set<string>();
  const seenDiscovery = new Set<string>();
  jwts.forEach((a, i) => {
    const p = root.index(i);
    errs.push(...validateJWTAuthenticator(p, a, opts.disallowedIssuers ?? [], sae));
    const url = a.issuer?.url ?? '';
    if (seenIssuers.has(url)) errs.push(fieldErrors.duplicate(p.child('issuer', 'url'), url));
    seenIssuers.add(url);
    const d = a.issuer?.discoveryURL ?? '';
    if (d) {
      if (seenDiscovery.has(d)) errs.push(fieldErrors.duplicate(p.child('issuer', 'discoveryURL'), d));
      seenDiscovery.add(d);
    }
  });
  if (c.anonymous) {
    const ap = FieldPath.root('anonymous');
    if (opts.featureGates?.AnonymousAuthConfigurableEndpoints === false) {
      errs.push(
        fieldErrors.forbidden(ap, 'anonymous is not supported when AnonymousAuthConfigurableEnpoints feature gate is disabled'),
      );
    }
    const conds = c.anonymous.conditions ?? [];
    if (!c.anonymous.enabled && conds.length > 0) {
      const lit = `[]apiserver.AnonymousAuthCondition{${conds.map((x) => `apiserver.AnonymousAuthCondition{Path:${goQuote(x.path ?? '')}}`).join(', ')}}`;
      errs.push(fieldErrors.invalid(ap.child('conditions'), new GoLiteral(lit), 'enabled should be set to true when conditions are defined'));
    }
  }
  return errs;
}

/**
 * One authenticator (upstream CompileAndValidateJWTAuthenticator). `path` null roots errors at
 * `issuer.` as the authenticator constructor does; compiled programs are attached as `compiled`.
 */
export function validateJWTAuthenticator(
  path: FieldPath | null,
  a: JWTAuthenticator,
  disallowedIssuers: readonly string[] = [],
  structuredAuthn = true,
): FieldError[] {
  const errs: FieldError[] = [];
  const at = (name: string) => (path ? path.child(name) : FieldPath.root(name));
  validateIssuer(errs, at('issuer'), a.issuer ?? ({} as Issuer), disallowedIssuers, structuredAuthn);
  const ruleState = validateClaimValidationRules(errs, at('claimValidationRules'), a.claimValidationRules ?? [], structuredAuthn);
  validateClaimMappings(errs, at('claimMappings'), a.claimMappings ?? ({} as ClaimMappings), ruleState, structuredAuthn);
  validateUserValidationRules(errs, at('userValidationRules'), a.userValidationRules ?? [], structuredAuthn);
  return errs;
}

function validateURL(errs: FieldError[], p: FieldPath, u: string): void {
  const parsed = goParseURL(u);
  if ('error' in parsed) {
    errs.push(fieldErrors.invalid(p, u, parsed.error));
    return;
  }
  if (parsed.scheme !== 'https') errs.push(fieldErrors.invalid(p, u, 'URL scheme must be https'));
  if (parsed.hasUserinfo) errs.push(fieldErrors.invalid(p, u, 'URL must not contain a username or password'));
  if (parsed.rawQuery) errs.push(fieldErrors.invalid(p, u, 'URL must not contain a query'));
  if (parsed.fragment) errs.push(fieldErrors.invalid(p, u, 'URL must not contain a fragment'));
}

function validateIssuer(errs: FieldError[], p: FieldPath, iss: Issuer, disallowed: readonly string[], sae: boolean) {
  const url = iss.url ?? '';
  const up = p.child('url');
  if (!url) errs.push(fieldErrors.required(up, 'URL is required'));
  else {
    if (disallowed.includes(url)) {
      errs.push(fieldErrors.invalid(up, url, `URL must not overlap with disallowed issuers: [${[...disallowed].sort().join(' ')}]`));
    }
    validateURL(errs, up, url);
  }

  const d = iss.discoveryURL ?? '';
  if (d) {
    const dp = p.child('discoveryURL');
    if (!sae) errs.push(fieldErrors.invalid(dp, d, `discoveryURL is ${NOT_SUPPORTED}`));
    if (url && url.replace(/\/+$/, '') === d.replace(/\/+$/, '')) {
      errs.push(fieldErrors.invalid(dp, d, 'discoveryURL must be different from URL'));
    }
    validateURL(errs, dp, d);
  }

  const auds = iss.audiences ?? [];
  const ap = p.child('audiences');
  if (auds.length === 0) errs.push(fieldErrors.required(ap, `at least one ${ap} is required`));
  else {
    if (auds.length > 1 && !sae) {
      errs.push(
        fieldErrors.invalid(ap, auds, `multiple audiences are ${NOT_SUPPORTED}`),
      );
    }
    const seen = new Set<string>();
    auds.forEach((aud, j) => {
      if (!aud) errs.push(fieldErrors.required(ap.index(j), "audience can't be empty"));
      else if (seen.has(aud)) errs.push(fieldErrors.duplicate(ap.index(j), aud));
      seen.add(aud);
    });
    const policy = iss.audienceMatchPolicy ?? '';
    const pp = p.child('audienceMatchPolicy');
    if (auds.length > 1 && policy !== 'MatchAny') {
      errs.push(fieldErrors.invalid(pp, policy, 'audienceMatchPolicy must be MatchAny for multiple audiences'));
    }
    if (auds.length === 1 && policy !== '' && policy !== 'MatchAny') {
      errs.push(fieldErrors.invalid(pp, policy, 'audienceMatchPolicy must be empty or MatchAny for single audience'));
    }
  }

  const ca = iss.certificateAuthority ?? '';
  if (ca) {
    const problem = certificateAuthorityProblem(ca);
    if (problem) errs.push(fieldErrors.invalid(p.child('certificateAuthority'), '<omitted>', problem));
  }
}

/** Go's cert pool AppendCertsFromPEM with error: at least one parseable CERTIFICATE block. */
function certificateAuthorityProblem(pem: string): string | null {
  const blocks = [...pem.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g)];
  let ok = 0;
  for (const b of blocks) {
    if (b[1] !== 'CERTIFICATE' || /^[\w-]+:/m.test(b[2]!)) continue;
    try {
      new X509Certificate(Buffer.from(b[2]!.replace(/\s+/g, ''), 'base64'));
      ok++;
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return ok ? null : 'data does not contain any valid RSA or ECDSA certificates';
}

interface RuleState {
  /** Programs of claim validation expressions that compiled. */
  compiled: CelProgram[];
}

function validateClaimValidationRules(errs: FieldError[], p: FieldPath, rules: ClaimValidationRule[], sae: boolean): RuleState {
  const state: RuleState = { compiled: [] };
  const seenClaims = new Set<string>();
  const seenExprs = new Set<string>();
  rules.forEach((r, k) => {
    const rp = p.index(k);
    const claim = r.claim ?? '';
    const expr = r.expression ?? '';
    if (expr && !sae) errs.push(fieldErrors.invalid(rp.child('expression'), expr, `expression is ${NOT_SUPPORTED}`));
    if (claim && expr) errs.push(fieldErrors.invalid(rp, claim, "claim and expression can't both be set"));
    else if (!claim && !expr) errs.push(fieldErrors.required(rp, 'claim or expression is required'));
    else if (claim) {
      if (r.message) errs.push(fieldErrors.invalid(rp.child('message'), r.message, "message can't be set when claim is set"));
      if (seenClaims.has(claim)) errs.push(fieldErrors.duplicate(rp.child('claim'), claim));
      seenClaims.add(claim);
    } else {
      if (r.requiredValue) {
        errs.push(fieldErrors.invalid(rp.child('requiredValue'), r.requiredValue, "requiredValue can't be set when expression is set"));
      }
      if (seenExprs.has(expr)) {
        errs.push(fieldErrors.duplicate(rp.child('expression'), expr));
        return;
      }
      seenExprs.add(expr);
      const prog = compileInto(errs, rp.child('expression'), expr, compileClaimValidationRule);
      attachProgram(r, prog);
      if (prog) state.compiled.push(prog);
    }
  });
  return state;
}

function validateClaimMappings(errs: FieldError[], p: FieldPath, m: ClaimMappings, rules: RuleState, sae: boolean): void {
  const username = m.username ?? {};
  const groups = m.groups ?? {};
  const uid = m.uid ?? {};
  const extra = m.extra ?? [];
  if (!sae) {
    if (username.expression) errs.push(fieldErrors.invalid(p.child('username', 'expression'), username.expression, `expression is ${NOT_SUPPORTED}`));
    if (groups.expression) errs.push(fieldErrors.invalid(p.child('groups', 'expression'), groups.expression, `expression is ${NOT_SUPPORTED}`));
    if (uid.claim || uid.expression) errs.push(fieldErrors.invalid(p.child('uid'), '', `uid claim mapping is ${NOT_SUPPORTED}`));
    if (extra.length) errs.push(fieldErrors.invalid(p.child('extra'), '', `extra claim mapping is ${NOT_SUPPORTED}`));
  }

  let usernameProgram: CelProgram | undefined;
  for (const [name, v, required] of [
    ['username', username, true],
    ['groups', groups, false],
  ] as const) {
    const vp = p.child(name);
    if (v.claim && v.expression) errs.push(fieldErrors.invalid(vp, '', "claim and expression can't both be set"));
    else if (!v.claim && !v.expression) {
      if (required) errs.push(fieldErrors.required(vp, 'claim or expression is required'));
    } else if (v.expression) {
      if (v.prefix !== undefined && v.prefix !== null) {
        errs.push(fieldErrors.invalid(vp.child('prefix'), v.prefix, "prefix can't be set when expression is set"));
      }
      const prog = compileInto(errs, vp.child('expression'), v.expression, compileClaimMapping);
      attachProgram(v, prog);
      if (name === 'username') usernameProgram = prog;
    } else if (v.prefix === undefined || v.prefix === null) {
      errs.push(
        fieldErrors.required(vp.child('prefix'), 'prefix is required when claim is set. It can be set to an empty string to disable prefixing'),
      );
    }
  }

  const up = p.child('uid');
  if (uid.claim && uid.expression) errs.push(fieldErrors.invalid(up, '', "claim and expression can't both be set"));
  else if (uid.expression) attachProgram(uid, compileInto(errs, up.child('expression'), uid.expression, compileClaimMapping));

  const extraPrograms: CelProgram[] = [];
  const seenKeys = new Set<string>();
  extra.forEach((e, i) => {
    const ep = p.child('extra').index(i);
    const key = e.key ?? '';
    const kp = ep.child('key');
    errs.push(...domainPrefixedPathErrors(kp, key));
    if (key !== key.toLowerCase()) errs.push(fieldErrors.invalid(kp, key, 'key must be lowercase'));
    const domain = key.split('/')[0]!;
    if (/(^|\.)(k8s\.io|kubernetes\.io)$/.test(domain)) {
      errs.push(fieldErrors.invalid(kp, key, 'k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use'));
    }
    if (seenKeys.has(key)) {
      errs.push(fieldErrors.duplicate(kp, key));
      return;
    }
    seenKeys.add(key);
    if (!e.valueExpression) {
      errs.push(fieldErrors.required(ep.child('valueExpression'), 'valueExpression is required'));
      return;
    }
    const prog = compileInto(errs, ep.child('valueExpression'), e.valueExpression, compileClaimMapping);
    attachProgram(e, prog);
    if (prog) extraPrograms.push(prog);
  });

  if (sae && usernameProgram && selectsField(usernameProgram, 'claims', 'email')) {
    const verified = [usernameProgram, ...extraPrograms, ...rules.compiled].some((x) => selectsField(x, 'claims', 'email_verified'));
    if (!verified) {
      errs.push(
        fieldErrors.invalid(
          p.child('username', 'expression'),
          usernameProgram.expression,
          'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
        ),
      );
    }
  }
}

const HTTP_PATH = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;

function domainPrefixedPathErrors(p: FieldPath, key: string): FieldError[] {
  if (!key) return [fieldErrors.required(p)];
  const slash = key.indexOf('/');
  const domain = slash < 0 ? '' : key.slice(0, slash);
  const path = slash < 0 ? '' : key.slice(slash + 1);
  if (slash < 0 || !domain || !path) return [fieldErrors.invalid(p, key, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = dns1123SubdomainErrors(domain).map((m) => fieldErrors.invalid(p, domain, m));
  if (!HTTP_PATH.test(path)) {
    errs.push(fieldErrors.invalid(p, path, "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"));
  }
  return errs;
}

function validateUserValidationRules(errs: FieldError[], p: FieldPath, rules: UserValidationRule[], sae: boolean): void {
  if (rules.length && !sae) errs.push(fieldErrors.invalid(p, '', `user validation rules are ${NOT_SUPPORTED}`));
  const seen = new Set<string>();
  rules.forEach((r, u) => {
    const xp = p.index(u).child('expression');
    const expr = r.expression ?? '';
    if (!expr) {
      errs.push(fieldErrors.required(xp, 'expression is required'));
      return;
    }
    if (seen.has(expr)) {
      errs.push(fieldErrors.duplicate(xp, expr));
      return;
    }
    seen.add(expr);
    attachProgram(r, compileInto(errs, xp, expr, compileUserValidationRule));
  });
}
