// Field errors live in @cl/apimachinery, shared with the resource API; re-exported so config code and users of
// @cl/config keep one import.
export { FieldPath, FieldError, OMIT_VALUE, formatBadValue, fieldErrors, ValidationError, GoLiteral, goQuote } from '@cl/apimachinery';
export type { FieldErrorType, ErrorList } from '@cl/apimachinery';
