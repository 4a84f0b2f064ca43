// How long a request and a connection may last, as kube-apiserver bounds them.
//
// Requests (upstream's WithRequestDeadline and WithTimeoutForNonLongRunningRequests): every request that is not
// long-running gets --request-timeout from the moment its headers were read, or less when it asks for less with
// `?timeout=` (a Go duration; 0 or more than --request-timeout means --request-timeout). At the deadline the
// server answers 504 and gives the request's max-in-flight seat back at once, whatever the handler or the client is
// still doing: a client that sends its body a byte a second cannot keep a seat longer than the deadline. Watches
// end on their own clock (timeoutSeconds, or a random time between --min-request-timeout and twice that).
//
// Connections (kube-apiserver's http.Server: ReadHeaderTimeout 32 s, IdleTimeout 90 s): a connection gets 32 s to
// finish its TLS handshake, then 32 s to send a request's headers; a kept-alive connection that sends no further
// request is closed 90 s after its last response. Nothing bounds how long a request body takes to arrive except the
// request's own deadline, as Go's server sets no ReadTimeout.
import type { ServerResponse } from 'node:http';
import type { RequestInfo } from '@cl/auth';
import { parseDuration } from '@cl/flags';
import { statusFailure } from '@cl/apimachinery';
import { isLongRunning } from './max-in-flight';

export const READ_HEADER_TIMEOUT_MS = 32_000;
export const IDLE_CONNECTION_TIMEOUT_MS = 90_000;

/** Upstream's body for a request past its deadline (apierrors.NewTimeoutError with no retry, as JSON with a newline). */
export const TIMEOUT_BODY = JSON.stringify(statusFailure(504, 'Timeout', 'Timeout: request did not complete within the allotted timeout', {})) + '\n';

/** When a request must be answered: never (long-running), after `ms`, or at once with a 400 for a bad `?timeout=`. */
export type Deadline = { kind: 'none' } | { kind: 'after'; ms: number } | { kind: 'invalid'; message: string };

const NONE: Deadline = { kind: 'none' };

/** The deadline of a request to `url` (its target, with the query), given --request-timeout as `maxMs`. */
export function requestDeadline(info: RequestInfo, url: string, maxMs: number): Deadline {
  // Long-running requests never read `?timeout=`, not even to refuse it (as upstream).
  if (isLongRunning(info)) return NONE;
  const asked = timeoutParameter(url);
  if (asked === null) return { kind: 'after', ms: maxMs };
  let ms: number;
  try {
    ms = parseDuration(asked);
  } catch (e) {
    return { kind: 'invalid', message: `invalid timeout specified in the request URL - ${(e as Error).message}` };
  }
  // A client may shorten its deadline, never lengthen it; 0 (and a negative value) means "the server's".
  return { kind: 'after', ms: ms > 0 && ms < maxMs ? ms : maxMs };
}

/** The first `timeout` query parameter of `url` when it is present and not empty (Go's Query().Get), else null. */
function timeoutParameter(url: string): string | null {
  const q = url.indexOf('?');
  // Most requests carry no query, or none that could name `timeout`: they cost two string searches.
  if (q < 0 || url.indexOf('timeout=', q) < 0) return null;
  return new URLSearchParams(url.slice(q + 1)).get('timeout') || null;
}

// Headers set before the handler ran, which the 504 keeps; whatever the handler had set is dropped with its answer,
// as upstream's timeout writer keeps the handler's headers apart until it writes.
const OUTER_HEADERS = new Set(['cache-control', 'audit-id']);

/**
 * Answers a request whose deadline passed: a 504 Status when nothing was sent yet, otherwise the connection is cut
 * (a response half sent cannot be finished). The connection closes after the 504 when the request body has not
 * all arrived, so the rest of a slow body is never waited for. Go sniffs the body's type, as the timeout writer sets
 * none: it is sent as text/plain, which client-go reads as its "the server was unable to return a response in the
 * time allotted" Timeout error, as against kube-apiserver.
 */
export function writeTimeout(res: ServerResponse, requestComplete: boolean): void {
  // The handler may still write after this; those writes must not surface as an unhandled 'error'.
  res.on('error', () => undefined);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const name of res.getHeaderNames()) if (!OUTER_HEADERS.has(name)) res.removeHeader(name);
  res.writeHead(504, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(TIMEOUT_BODY), ...(requestComplete ? {} : { Connection: 'close' }) });
  res.end(TIMEOUT_BODY);
}

export interface ConnectionTimeouts {
  /** ReadHeaderTimeout: for the TLS handshake, and then for each request's headers. */
  readHeaderMs: number;
  /** IdleTimeout: a kept-alive connection without a request. */
  idleMs: number;
}

/**
 * The options of Node's https server that give these timeouts. Node checks header deadlines on an interval (30 s by
 * default, which is how a silent connection lived 60-90 s): every second here, or faster for short test values.
 * Node's own whole-request timeout (408) is off: the request deadline above answers those requests, with upstream's
 * 504, and long-running requests (a proxied upload) have no such limit upstream.
 */
export function httpsServerTimeouts(t: ConnectionTimeouts) {
  return {
    handshakeTimeout: t.readHeaderMs,
    headersTimeout: t.readHeaderMs,
    requestTimeout: 0,
    connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(t.readHeaderMs / 4))),
    keepAliveTimeout: t.idleMs,
  };
}
