// API errors as apimachinery's StatusError: every non-2xx answer carries a metav1.Status, read from the body when
// the server sent one, otherwise synthesized the way client-go's NewGenericServerResponse does, so callers test
// reasons, never message texts.

export type Status = Record<string, unknown>;

/** A non-2xx answer: `code` is the HTTP status, `reason` the Status reason ('NotFound', 'Conflict', ...), `status` the metav1.Status. */
export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly status: Status;

  constructor(status: Status, httpCode?: number) {
    const code = typeof status.code === 'number' && status.code > 0 ? status.code : (httpCode ?? 0);
    const reason = typeof status.reason === 'string' ? status.reason : '';
    super(typeof status.message === 'string' && status.message !== '' ? status.message : `the server responded with the status code ${code}`);
    this.name = 'ApiError';
    this.code = code;
    this.reason = reason;
    this.status = status;
  }

  /** The error for a response: its body when that is a Status, else one synthesized from the code. */
  static fromResponse(code: number, body: Buffer, method: string, contentType: string | undefined): ApiError {
    const text = body.toString('utf8');
    try {
      const parsed = JSON.parse(text) as unknown;
      if (isStatus(parsed)) return new ApiError(parsed, code);
    } catch {
      // Not JSON: synthesized below.
    }
    // As client-go: the body's text is kept as a cause only when the server said it is text.
    const isText = !contentType || /^text\//i.test(contentType.trim());
    return new ApiError(genericStatus(code, method, isText ? text.trim().slice(0, 1024) : 'unknown'), code);
  }

  /** The error an ERROR watch event carries (its object is a Status). */
  static fromWatchEvent(object: unknown): ApiError {
    return new ApiError(isStatus(object) ? object : genericStatus(500, 'WATCH', JSON.stringify(object ?? null)));
  }
}

function isStatus(v: unknown): v is Status {
  return v !== null && typeof v === 'object' && (v as Status).kind === 'Status';
}

// apimachinery/pkg/api/errors NewGenericServerResponse: the reason a client infers from a bare status code.
const REASON_BY_CODE: Record<number, [reason: string, message: string]> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  403: ['Forbidden', ''],
  404: ['NotFound', 'the server could not find the requested resource'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  406: ['NotAcceptable', 'the server was unable to respond with a content type that the client supports'],
  // Upstream leaves 410 without a reason (IsGone still matches it by code); naming it is kinder to callers.
  410: ['Gone', 'the server responded with the status code 410 but did not return more information'],
  415: ['UnsupportedMediaType', ''],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
};

function genericStatus(code: number, method: string, serverMessage: string): Status {
  let [reason, message] = REASON_BY_CODE[code] ?? ['', `the server responded with the status code ${code} but did not return more information`];
  if (code === 409) [reason, message] = [method === 'POST' ? 'AlreadyExists' : 'Conflict', 'the server reported a conflict'];
  else if (code === 403 || code === 415) message = serverMessage;
  else if (code === 406 && serverMessage && serverMessage !== 'unknown') message = serverMessage;
  else if (!REASON_BY_CODE[code] && code >= 500) [reason, message] = ['InternalError', `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`];
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    details: { causes: [{ reason: 'UnexpectedServerResponse', message: serverMessage }] },
    code,
  };
}

// The reasons apimachinery knows: a 404 or 409 carrying one of these is that reason, not NotFound/Conflict.
const KNOWN_REASONS = new Set([
  'Unauthorized', 'Forbidden', 'NotFound', 'AlreadyExists', 'Conflict', 'Gone', 'Invalid', 'ServerTimeout', 'StoreReadError',
  'Timeout', 'TooManyRequests', 'BadRequest', 'MethodNotAllowed', 'NotAcceptable', 'RequestEntityTooLarge',
  'UnsupportedMediaType', 'InternalError', 'Expired', 'ServiceUnavailable',
]);

function reasonAndCode(e: unknown): { reason: string; code: number } | undefined {
  if (e === null || typeof e !== 'object') return undefined;
  const { reason, code } = e as { reason?: unknown; code?: unknown };
  // Duck-typed so an ApiError from another copy of this package is recognized too.
  return typeof code === 'number' && typeof reason === 'string' ? { reason, code } : undefined;
}

const byReasonOrCode = (reason: string, code: number) => (e: unknown) => {
  const rc = reasonAndCode(e);
  return !!rc && (rc.reason === reason || (!KNOWN_REASONS.has(rc.reason) && rc.code === code));
};

export const isNotFound: (e: unknown) => boolean = byReasonOrCode('NotFound', 404);
export const isConflict: (e: unknown) => boolean = byReasonOrCode('Conflict', 409);
export const isAlreadyExists = (e: unknown): boolean => reasonAndCode(e)?.reason === 'AlreadyExists';
export const isInvalid: (e: unknown) => boolean = byReasonOrCode('Invalid', 422);
/** Reason Expired: a resourceVersion or continue token older than the server keeps (HTTP 410). */
export const isResourceExpired = (e: unknown): boolean => reasonAndCode(e)?.reason === 'Expired';

/**
 * HTTP 410 of any reason, Gone or Expired. Both tell a list+watch client the same thing (relist), which is
 * how client-go's reflector reads them (isExpiredError); upstream's IsGone alone would miss the Expired
 * that API servers send for a too-old resourceVersion.
 */
export const isGone = (e: unknown): boolean => {
  const rc = reasonAndCode(e);
  return !!rc && (rc.reason === 'Gone' || rc.reason === 'Expired' || rc.code === 410);
};
