// The shape of a compiled CEL expression as the rest of the code base sees it: compiled and type-checked
// once (at config load), evaluated many times (per token, per request).

/** `authentication.k8s.io/v1` UserInfo as CEL sees it (`user` variable). */
export interface CelUserInfo {
  username: string;
  uid: string;
  groups: string[];
  extra: Record<string, string[]>;
}

/** The v1 SubjectAccessReviewSpec as authorization match conditions see it (`request` variable). */
export interface CelSubjectAccessReviewSpec {
  resourceAttributes?: {
    namespace?: string;
    verb?: string;
    group?: string;
    version?: string;
    resource?: string;
    subresource?: string;
    name?: string;
    fieldSelector?: { rawSelector?: string; requirements?: Array<{ key: string; operator: string; values?: string[] }> };
    labelSelector?: { rawSelector?: string; requirements?: Array<{ key: string; operator: string; values?: string[] }> };
  };
  nonResourceAttributes?: { path?: string; verb?: string };
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
}

/** Variables an expression may be evaluated with; each environment declares exactly one of them. */
export interface CelVariables {
  /** JWT claims, already converted with `claimsToCel` (whole numbers as bigint), or plain JSON (converted on the fly). */
  claims?: unknown;
  user?: CelUserInfo;
  request?: CelSubjectAccessReviewSpec;
}

/** A compiled program. `evaluate` throws a `CelEvaluationError` on runtime errors (e.g. `no such key: email`). */
export interface CelProgram<T = unknown> {
  readonly expression: string;
  /** The checked result type in CEL notation, e.g. `bool`, `string`, `dyn`. */
  readonly outputType: string;
  evaluate(vars: CelVariables): T;
}
