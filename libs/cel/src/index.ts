export type { CelProgram, CelVariables, CelUserInfo, CelSubjectAccessReviewSpec } from './program';
