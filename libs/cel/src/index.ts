export type { CelProgram, CelVariables, CelUserInfo, CelSubjectAccessReviewSpec } from './program';
export {
  compileExpression,
  compileClaimValidationRule,
  compileClaimMapping,
  compileUserValidationRule,
  compileMatchCondition,
  selectsField,
  CelResultTypeError,
  type CompileOptions,
} from './compile';
export { CelCompileError, CelEvaluationError } from './errors';
export { claimsToCel, parseClaimsJson, type CelValue } from './claims';
export { celEnvironment, type CelEnvironmentName } from './environment';
