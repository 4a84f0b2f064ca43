// What a failed write means for the event (client-go tools/record/event.go recordEvent, util.IsKeyNotFoundError).
// Any error with a numeric `code` is an answer of the API server with that HTTP status, as the client's ApiError;
// a Node socket error's `code` is a string ('ECONNREFUSED') and so counts as no answer.

export type WriteErrorVerdict =
  /** The server answered and will answer the same again; expected, so not worth a log line. */
  | 'give-up-quietly'
  /** The server answered and will answer the same again. */
  | 'give-up'
  /** No answer (transport error, unreadable response): the server may be back soon. */
  | 'retry';

interface StatusLike {
  code?: unknown;
  reason?: unknown;
  details?: { causes?: Array<{ type?: unknown; reason?: unknown }> };
  /** The shape of @cl/apimachinery's ApiError, which keeps the Status object whole. */
  status?: { reason?: unknown; details?: { causes?: Array<{ type?: unknown; reason?: unknown }> } };
}

export function httpStatusOf(err: unknown): number | undefined {
  const code = (err as StatusLike | null)?.code;
  return typeof err === 'object' && err !== null && typeof code === 'number' ? code : undefined;
}

function reasonOf(err: StatusLike): unknown {
  return err.reason ?? err.status?.reason;
}

function hasCause(err: StatusLike, cause: string): boolean {
  const causes = err.details?.causes ?? err.status?.details?.causes ?? [];
  // metav1.StatusCause's JSON field is `reason`; client-go's Go field is `Type`. Accept either spelling.
  return causes.some((c) => c.reason === cause || c.type === cause);
}

export function isNotFound(err: unknown): boolean {
  return httpStatusOf(err) === 404;
}

/**
 * Upstream's decision table, first match wins. Note that it gives up on every status, 429 and 5xx included:
 * client-go's REST client has already retried those (Retry-After) before the recorder sees them.
 */
const WRITE_ERROR_TABLE: ReadonlyArray<{ why: string; matches: (err: unknown) => boolean; verdict: WriteErrorVerdict }> = [
  // A retry after a lost response, or a name reused: the event is there either way.
  { why: 'AlreadyExists', matches: (err) => httpStatusOf(err) !== undefined && reasonOf(err as StatusLike) === 'AlreadyExists', verdict: 'give-up-quietly' },
  // Events about objects in a namespace being deleted can never be stored.
  { why: 'NamespaceTerminating', matches: (err) => httpStatusOf(err) !== undefined && hasCause(err as StatusLike, 'NamespaceTerminating'), verdict: 'give-up-quietly' },
  // Anything else the server said about this event it will say again.
  { why: 'status error', matches: (err) => httpStatusOf(err) !== undefined, verdict: 'give-up' },
  { why: 'no answer', matches: () => true, verdict: 'retry' },
];

export function judgeWriteError(err: unknown): WriteErrorVerdict {
  return WRITE_ERROR_TABLE.find((row) => row.matches(err))!.verdict;
}

export function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
