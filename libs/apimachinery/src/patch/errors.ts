// The error every patch algorithm throws, carrying the HTTP code kube-apiserver 1.33 answers with.
//
// How kube-apiserver picks the code (k8s.io/apiserver pkg/endpoints/handlers/patch.go, v0.33):
// - 400 BadRequest (errors.NewBadRequest, message = the error text):
//   * a body that is not JSON ("invalid JSON patch", validateAndTranscodePatch; callers parse first);
//   * a JSON patch that does not decode (jsonpatch.DecodePatch) or, with fieldValidation Warn/Strict, does
//     not strictly decode into []jsonPatchOp ("error decoding patch: ...");
//   * a merge patch that is not an object under Warn/Strict ("error decoding patch: ..."), or that
//     evanphx/json-patch rejects as ErrBadJSONPatch ("Invalid JSON Patch");
//   * a strategic merge patch that is not an object, and the strategic errors interpretStrategicMergePatchError
//     lists as bad requests (bad $deleteFromPrimitiveList / $retainKeys / $setElementOrder format, bad JSON doc).
// - 413 RequestEntityTooLarge: a JSON patch with more than 10000 operations.
// - 422 Invalid: a JSON patch whose *application* fails (missing path, failed test, bad index, ...) goes
//   through errors.NewGenericServerResponse(422, ...), which keeps only the generic message "the server
//   rejected our request due to an error in our request" (isUnexpectedResponse=false drops the detail);
//   likewise the strategic errors ErrNoListOfLists and ErrPatchContentNotMatchRetainKeys.
// - 500: any other strategic merge patch error (missing merge key, mismatched list element types, unknown
//   $patch value, ...) and a merge patch against a null document are returned as plain Go errors, which
//   responsewriters.ErrorToAPIStatus turns into code 500 with an empty (Unknown) reason and the error text
//   as message. A Go panic in the upstream code (reachable with a few malformed patches) also ends as 500.
//
// `message` is always the upstream error text (useful in logs); `statusMessage` is what kube-apiserver puts
// in Status.message, which for 422 and panics is not that text.

export type PatchErrorCode = 400 | 413 | 422 | 500;
export type PatchErrorReason = 'BadRequest' | 'RequestEntityTooLarge' | 'Invalid' | '';

const REASONS: Record<PatchErrorCode, PatchErrorReason> = {
  400: 'BadRequest',
  413: 'RequestEntityTooLarge',
  422: 'Invalid',
  500: '',
};

const GENERIC_422 = 'the server rejected our request due to an error in our request';
const PANIC_MESSAGE = 'This request caused apiserver to panic. Look in the logs for details.';

export class PatchError extends Error {
  readonly reason: PatchErrorReason;

  constructor(
    readonly code: PatchErrorCode,
    message: string,
    /** True where upstream would have panicked rather than returned an error. */
    readonly panicked = false,
  ) {
    super(message);
    this.name = 'PatchError';
    this.reason = REASONS[code];
  }

  /** The Status.message kube-apiserver answers with for this error. */
  get statusMessage(): string {
    if (this.panicked) return PANIC_MESSAGE;
    if (this.code === 422) return GENERIC_422;
    if (this.code === 413) return `Request entity too large: ${this.message}`;
    return this.message;
  }
}

export const patchErrors = {
  badRequest: (message: string) => new PatchError(400, message),
  tooLarge: (message: string) => new PatchError(413, message),
  unprocessable: (message: string) => new PatchError(422, message),
  /** A plain (non-Status) Go error: 500, reason Unknown. */
  plain: (message: string) => new PatchError(500, message),
  panic: (message: string) => new PatchError(500, message, true),
};
