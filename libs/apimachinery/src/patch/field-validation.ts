// The PATCH request's fieldValidation parameter. kube-apiserver treats an empty one as Warn; under Warn and
// Strict, patch.go decodes JSON and merge patches strictly before applying them, turning a malformed patch
// into a 400 instead of an applier error.
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';
