// Turns verified claims into a user (username, groups, uid, extra), then applies the required-claim
// rules, the claim validation expressions and the user validation expressions, in upstream order and
// with upstream's error text (plugin/pkg/authenticator/token/oidc).
import type { UserInfo } from '@cl/auth';
import type { JWTAuthenticator } from '@cl/config';
import { defaultCompiler, evaluate, programFor, stringListResult, type CelCompiler, type CelProgram } from './cel';
import { unmarshalError } from './go-text';

export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';

type Claims = Record<string, unknown>;

interface Mapping {
  claim?: string;
  prefix?: string;
  program?: CelProgram;
}

function badGroups(name: string, value: unknown): never {
  throw new Error(`oidc: parse groups claim ${JSON.stringify(name)}: ${unmarshalError(value, 'string').message}`);
}

/** The compiled form of one authenticator's mappings and rules. */
export class ClaimMapper {
  private readonly username: Mapping;
  private readonly groups?: Mapping;
  private readonly uid?: Mapping;
  private readonly extra: { key: string; program: CelProgram }[];
  private readonly required: { claim: string; value: string }[];
  private readonly claimRules: { program: CelProgram; message: string }[];
  private readonly userRules: { program: CelProgram; message: string }[];
  /** Whether any expression needs the CEL form of the claims. */
  readonly needsCelClaims: boolean;
  readonly groupsClaim: string;

  constructor(cfg: JWTAuthenticator, compile: CelCompiler = defaultCompiler) {
    const m = cfg.claimMappings;
    const mapping = (x: { claim?: string; prefix?: string; expression?: string; compiled?: CelProgram } | undefined): Mapping | undefined => {
      if (!x) return undefined;
      if (x.expression) return { program: programFor(x, x.expression, 'claims', compile) };
      if (x.claim) return { claim: x.claim, prefix: x.prefix ?? '' };
      return undefined;
    };
    this.username = mapping(m.username) ?? { claim: '', prefix: '' };
    this.groups = mapping(m.groups);
    this.uid = mapping(m.uid);
    this.extra = (m.extra ?? []).map((e) => ({ key: e.key, program: programFor(e, e.valueExpression, 'claims', compile) }));
    this.required = [];
    this.claimRules = [];
    for (const r of cfg.claimValidationRules ?? []) {
      if (r.expression) this.claimRules.push({ program: programFor(r, r.expression, 'claims', compile), message: r.message ?? '' });
      else if (r.claim) this.required.push({ claim: r.claim, value: r.requiredValue ?? '' });
    }
    this.userRules = (cfg.userValidationRules ?? []).map((r) => ({ program: programFor(r, r.expression, 'user', compile), message: r.message ?? '' }));
    this.needsCelClaims = !!(this.username.program || this.groups?.program || this.uid?.program || this.extra.length || this.claimRules.length);
    this.groupsClaim = this.groups?.claim ?? '';
  }

  /** Maps and validates; throws the upstream error text on any failure. */
  map(claims: Claims, celClaims: () => unknown): UserInfo {
    const username = this.mapUsername(claims, celClaims);
    const groups = this.mapGroups(claims, celClaims);
    const uid = this.mapUid(claims, celClaims);
    const user: UserInfo = { username, uid, groups, extra: this.mapExtra(claims, celClaims) };
    this.checkRequired(claims);
    this.checkClaimRules(celClaims);
    this.checkUserRules(user);
    return user;
  }

  private mapUsername(claims: Claims, cel: () => unknown): string {
    const u = this.username;
    if (u.program) {
      let v: unknown;
      try {
        v = evaluate(u.program, { claims: cel() });
      } catch (e) {
        throw new Error(`oidc: error evaluating username claim expression: ${(e as Error).message}`);
      }
      if (typeof v !== 'string') throw new Error('oidc: error evaluating username claim expression: username claim expression must return a string');
      if (v === '') throw new Error('oidc: empty username via CEL expression is not allowed');
      return v;
    }
    const name = u.claim ?? '';
    if (!(name in claims)) throw new Error(`oidc: parse username claims ${JSON.stringify(name)}: claim not present`);
    const value = claims[name];
    if (value !== null && typeof value !== 'string') {
      throw new Error(`oidc: parse username claims ${JSON.stringify(name)}: ${unmarshalError(value, 'string').message}`);
    }
    if (name === 'email' && 'email_verified' in claims) {
      const verified = claims.email_verified;
      if (verified !== null && typeof verified !== 'boolean') {
        throw new Error(`oidc: parse 'email_verified' claim: ${unmarshalError(verified, 'bool').message}`);
      }
      if (!verified) throw new Error('oidc: email not verified');
    }
    return (u.prefix ?? '') + ((value as string | null) ?? '');
  }

  private mapGroups(claims: Claims, cel: () => unknown): string[] {
    const g = this.groups;
    if (!g) return [];
    if (g.program) {
      let v: unknown;
      try {
        v = evaluate(g.program, { claims: cel() });
      } catch (e) {
        throw new Error(`oidc: error evaluating group claim expression: ${(e as Error).message}`);
      }
      const list = stringListResult(v);
      if (list === null) throw new Error('oidc: error evaluating group claim expression: expression must return a string or a list of strings');
      return list;
    }
    const name = g.claim ?? '';
    if (!(name in claims)) return [];
    const value = claims[name];
    if (value === null) return [];
    const prefix = g.prefix ?? '';
    if (typeof value === 'string') return [prefix + value];
    // One pass that checks and copies (null entries become "", as Go unmarshals them).
    if (Array.isArray(value)) {
      const groups = new Array<string>(value.length);
      for (let i = 0; i < value.length; i++) {
        const x: unknown = value[i];
        if (x === null) groups[i] = prefix;
        else if (typeof x === 'string') groups[i] = prefix + x;
        else return badGroups(name, value);
      }
      return groups;
    }
    return badGroups(name, value);
  }

  private mapUid(claims: Claims, cel: () => unknown): string {
    const u = this.uid;
    if (!u) return '';
    if (u.program) {
      let v: unknown;
      try {
        v = evaluate(u.program, { claims: cel() });
      } catch (e) {
        throw new Error(`oidc: error evaluating uid claim expression: ${(e as Error).message}`);
      }
      if (typeof v !== 'string') throw new Error('oidc: error evaluating uid claim expression: uid claim expression must return a string');
      return v;
    }
    const name = u.claim ?? '';
    if (!(name in claims)) throw new Error(`oidc: parse uid claim ${JSON.stringify(name)}: claim not present`);
    const value = claims[name];
    if (value !== null && typeof value !== 'string') throw new Error(`oidc: parse uid claim ${JSON.stringify(name)}: ${unmarshalError(value, 'string').message}`);
    return (value as string | null) ?? '';
  }

  private mapExtra(claims: Claims, cel: () => unknown): Record<string, string[]> {
    const extra: Record<string, string[]> = {};
    const jti = claims.jti;
    if (typeof jti === 'string' && jti !== '') extra[CREDENTIAL_ID_KEY] = [`JTI=${jti}`];
    if (this.extra.length === 0) return extra;
    const celClaims = cel();
    // All expressions are evaluated before any result is converted; evaluation errors carry no prefix.
    const values = this.extra.map((e) => evaluate(e.program, { claims: celClaims }));
    this.extra.forEach((e, i) => {
      const list = stringListResult(values[i]);
      if (list === null) throw new Error(`oidc: error evaluating extra claim expression: ${e.program.expression}: expression must return a string or a list of strings`);
      if (list.length > 0) extra[e.key] = list;
    });
    return extra;
  }

  private checkRequired(claims: Claims): void {
    for (const r of this.required) {
      if (!(r.claim in claims)) throw new Error(`oidc: required claim ${r.claim} not present in ID token`);
      const v = claims[r.claim];
      if (v !== null && typeof v !== 'string') throw new Error(`oidc: parse claim ${r.claim}: ${unmarshalError(v, 'string').message}`);
      const got = (v as string | null) ?? '';
      if (got !== r.value) throw new Error(`oidc: required claim ${r.claim} value does not match. Got = ${got}, want = ${r.value}`);
    }
  }

  private checkClaimRules(cel: () => unknown): void {
    if (this.claimRules.length === 0) return;
    const celClaims = cel();
    let results: unknown[];
    try {
      results = this.claimRules.map((r) => evaluate(r.program, { claims: celClaims }));
    } catch (e) {
      throw new Error(`oidc: error evaluating claim validation expression: ${(e as Error).message}`);
    }
    this.claimRules.forEach((r, i) => {
      if (typeof results[i] !== 'boolean') throw new Error(`oidc: error evaluating claim validation expression: validation expression must return a boolean`);
      if (!results[i]) throw new Error(`oidc: error evaluating claim validation expression: validation expression '${r.program.expression}' failed: ${r.message}`);
    });
  }

  private checkUserRules(user: UserInfo): void {
    if (this.userRules.length === 0) return;
    const celUser = { username: user.username, uid: user.uid, groups: [...user.groups], extra: { ...user.extra } };
    let results: unknown[];
    try {
      results = this.userRules.map((r) => evaluate(r.program, { user: celUser }));
    } catch (e) {
      throw new Error(`oidc: error evaluating user info validation rule: ${(e as Error).message}`);
    }
    this.userRules.forEach((r, i) => {
      if (typeof results[i] !== 'boolean') throw new Error('oidc: error evaluating user info validation rule: validation expression must return a boolean');
      if (!results[i]) throw new Error(`oidc: error evaluating user info validation rule: validation expression '${r.program.expression}' failed: ${r.message}`);
    });
  }
}
