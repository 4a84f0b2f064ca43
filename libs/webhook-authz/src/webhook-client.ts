// One SubjectAccessReview round-trip as client-go's REST client makes it for kube-apiserver's webhook, and
// upstream's retry around it (k8s.io/apiserver pkg/util/webhook): POST to the kubeconfig URL with
// `?timeout=`, credentials only over https, each attempt bounded by the timeout, retried with exponential
// backoff on the outcomes upstream retries (connection reset, 5xx except 503, 429, 503 with Retry-After).
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { formatDuration, goQuote } from '@cl/flags';
import type { WebhookConnection } from './kubeconfig';
import type { WebhookResult } from './metrics';

/** Makes the agent a webhook connection uses; the API server passes its egress selector's `controlplane` agent. */
export type AgentFactory = (url: URL, tls: https.AgentOptions | undefined) => http.Agent;

export interface Backoff {
  durationMs: number;
  factor: number;
  jitter: number;
  steps: number;
}

/** kube-apiserver's backoff for authorization webhooks: at most 5 attempts, 0.5s growing by 1.5x. */
export const DEFAULT_BACKOFF: Backoff = { durationMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

/** A failed attempt: Go's error text, whether upstream retries it, and the metrics result label. */
export class WebhookRequestError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly result: Exclude<WebhookResult, 'success'>,
  ) {
    super(message);
    this.name = 'WebhookRequestError';
  }
}

export interface SubjectAccessReviewClientOptions {
  connection: WebhookConnection;
  timeoutMs: number;
  agentFactory?: AgentFactory;
  backoff?: Backoff;
  /** Called after every attempt (for the per-attempt webhook metrics). */
  onAttempt?: (result: WebhookResult, seconds: number) => void;
}

const MAX_TEXT = 2048;
const ERRNO_TEXT: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by peer',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network is unreachable',
  ETIMEDOUT: 'i/o timeout',
  EPIPE: 'broken pipe',
};
const UNKNOWN_AUTHORITY = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
]);

export class SubjectAccessReviewClient {
  private readonly url: string;
  private readonly agent: http.Agent;
  private readonly headers: Record<string, string>;
  private readonly backoff: Backoff;
  private readonly isHttps: boolean;

  constructor(private readonly opts: SubjectAccessReviewClientOptions) {
    const c = opts.connection;
    const u = new URL(c.url.href);
    u.search = `?timeout=${formatDuration(opts.timeoutMs)}`;
    this.url = u.href;
    this.isHttps = u.protocol === 'https:';
    this.backoff = opts.backoff ?? DEFAULT_BACKOFF;
    this.headers = {
      'Content-Type': 'application/json',
      Accept: 'application/json, */*',
      'Accept-Encoding': 'gzip',
      'User-Agent': 'Go-http-client/1.1',
    };
    // client-go sends credentials only over TLS (rest.IsConfigTransportTLS).
    if (this.isHttps && c.token) this.headers.Authorization = `Bearer ${c.token}`;
    else if (this.isHttps && (c.username || c.password)) {
      this.headers.Authorization = `Basic ${Buffer.from(`${c.username ?? ''}:${c.password ?? ''}`).toString('base64')}`;
    }
    let tls: https.AgentOptions | undefined;
    if (this.isHttps) {
      tls = { keepAlive: true, minVersion: 'TLSv1.2', rejectUnauthorized: !c.insecureSkipTlsVerify };
      if (c.ca) tls.ca = c.ca;
      if (c.cert) tls.cert = c.cert;
      if (c.key) tls.key = c.key;
      const name = c.serverName ?? u.hostname.replace(/^\[|\]$/g, '');
      // Go sends no SNI for an IP literal (Node refuses one); Node verifies the certificate against servername or host.
      if (!isIP(name)) tls.servername = name;
    }
    this.agent = opts.agentFactory
      ? opts.agentFactory(u, tls)
      : this.isHttps
        ? new https.Agent(tls)
        : new http.Agent({ keepAlive: true });
  }

  /**
   * POSTs `body`, retrying as upstream does; resolves `decode` of the first 2xx answer. A body `decode` rejects
   * fails that attempt (not retried), as a decoding error inside client-go's `Do().Into()` does.
   */
  async post<T>(body: string, decode: (text: string) => T, signal?: AbortSignal): Promise<T> {
    let delay = this.backoff.durationMs;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw new WebhookRequestError('webhook call failed: context canceled', false, 'canceled');
      try {
        return await this.attempt(body, decode, signal);
      } catch (e) {
        const err = e as WebhookRequestError;
        if (!err.retryable || attempt >= this.backoff.steps) throw err;
      }
      await sleep(delay * (1 + Math.random() * this.backoff.jitter), signal);
      delay *= this.backoff.factor;
    }
  }

  /** Releases pooled connections. */
  close(): void {
    this.agent.destroy();
  }

  private attempt<T>(body: string, decode: (text: string) => T, signal?: AbortSignal): Promise<T> {
    const started = process.hrtime.bigint();
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const finish = (result: WebhookResult, value: { ok: T } | WebhookRequestError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.opts.onAttempt?.(result, Number(process.hrtime.bigint() - started) / 1e9);
        if (value instanceof WebhookRequestError) reject(value);
        else resolve(value.ok);
      };
      const payload = Buffer.from(body);
      const req = (this.isHttps ? https : http).request(this.url, {
        method: 'POST',
        agent: this.agent,
        headers: { ...this.headers, 'Content-Length': String(payload.length) },
      });
      const fail = (message: string, retryable: boolean, result: Exclude<WebhookResult, 'success'>) => {
        finish(result, new WebhookRequestError(message, retryable, result));
        req.destroy();
      };
      const timer = setTimeout(
        () => fail(`Post ${goQuote(this.url)}: context deadline exceeded`, false, 'timeout'),
        this.opts.timeoutMs,
      );
      const onAbort = () => fail(`Post ${goQuote(this.url)}: context canceled`, false, 'canceled');
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (e) => {
        const { message, retryable } = describeTransportError(e);
        fail(`Post ${goQuote(this.url)}: ${message}`, retryable, 'error');
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (e) => fail(`Post ${goQuote(this.url)}: ${describeTransportError(e).message}`, true, 'error'));
        res.on('end', () => {
          let raw = Buffer.concat(chunks);
          try {
            if (/gzip/i.test(String(res.headers['content-encoding'] ?? ''))) raw = gunzipSync(raw);
          } catch (e) {
            return fail(`Post ${goQuote(this.url)}: ${(e as Error).message}`, false, 'error');
          }
          const code = res.statusCode ?? 0;
          if (code >= 200 && code <= 206) {
            if (raw.length === 0) {
              return fail(`0-length response with status code: ${code} and content type: ${res.headers['content-type'] ?? ''}`, false, 'error');
            }
            let decoded: T;
            try {
              decoded = decode(raw.toString('utf8'));
            } catch (e) {
              return fail((e as Error).message, false, 'error');
            }
            return finish('success', { ok: decoded });
          }
          const err = responseError(code, raw, res.headers);
          finish(err.result, err);
        });
      });
      if (signal?.aborted) return onAbort();
      req.end(payload);
    });
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(t);
      reject(new WebhookRequestError('webhook call failed: context canceled', false, 'canceled'));
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Go's words for a failed connection; a reset connection is the one transport failure upstream retries. */
function describeTransportError(e: Error): { message: string; retryable: boolean } {
  const code = (e as NodeJS.ErrnoException).code ?? ((e.cause as NodeJS.ErrnoException | undefined)?.code);
  if (code && UNKNOWN_AUTHORITY.has(code)) return { message: 'tls: failed to verify certificate: x509: certificate signed by unknown authority', retryable: false };
  if (code === 'CERT_HAS_EXPIRED') return { message: 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid', retryable: false };
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return { message: `tls: failed to verify certificate: x509: ${e.message}`, retryable: false };
  if (e.message === 'socket hang up') return { message: 'EOF', retryable: code === 'ECONNRESET' };
  if (e.name === 'EgressDialError') return { message: e.message, retryable: false };
  if (code === 'ECONNRESET') return { message: `read: ${ERRNO_TEXT.ECONNRESET}`, retryable: true };
  const { address, port, syscall } = e as NodeJS.ErrnoException & { address?: string; port?: number };
  if (code && ERRNO_TEXT[code] && syscall === 'connect' && address) {
    const hostPort = address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
    return { message: `dial tcp ${hostPort}: connect: ${ERRNO_TEXT[code]}`, retryable: false };
  }
  return { message: code && ERRNO_TEXT[code] ? ERRNO_TEXT[code] : e.message, retryable: false };
}

function isTextResponse(contentType: string | undefined): boolean {
  if (!contentType) return true;
  return /^\s*text\//i.test(contentType);
}

/** A `Status` object in a non-2xx body wins over the generic text, as client-go decodes it. */
function statusFromBody(raw: Buffer): { message: string; reason: string; code: number } | undefined {
  try {
    const o = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    if (o && o.kind === 'Status' && o.status === 'Failure') {
      return { message: String(o.message ?? ''), reason: String(o.reason ?? ''), code: Number(o.code ?? 0) };
    }
  } catch {
    // not a Status
  }
  return undefined;
}

const RETRY_REASONS = new Set(['InternalError', 'Timeout', 'TooManyRequests', 'ServerTimeout']);

/** client-go's transformResponse + NewGenericServerResponse + DefaultShouldRetry for a non-2xx answer. */
export function responseError(code: number, raw: Buffer, headers: http.IncomingHttpHeaders): WebhookRequestError {
  const retryAfter = Number.parseInt(String(headers['retry-after'] ?? ''), 10);
  const hasRetryAfter = Number.isInteger(retryAfter) && retryAfter > 0;
  const status = statusFromBody(raw);
  if (status) {
    const c = status.code || code;
    const retryable = RETRY_REASONS.has(status.reason) || (status.reason === '' && (c === 500 || c === 504 || c === 429)) || hasRetryAfter;
    return new WebhookRequestError(status.message, retryable, status.reason === 'Timeout' || c === 504 ? 'timeout' : 'error');
  }
  const text = isTextResponse(headers['content-type']) ? raw.subarray(0, MAX_TEXT).toString('utf8').trim() : 'unknown';
  switch (code) {
    case 400:
      return new WebhookRequestError('the server rejected our request for an unknown reason', false, 'error');
    case 401:
      return new WebhookRequestError('the server has asked for the client to provide credentials', false, 'error');
    case 403:
      return new WebhookRequestError(text, false, 'error');
    case 404:
      return new WebhookRequestError('the server could not find the requested resource', false, 'error');
    case 405:
      return new WebhookRequestError('the server does not allow this method on the requested resource', false, 'error');
    case 409:
      return new WebhookRequestError('the server reported a conflict', false, 'error');
    case 422:
      return new WebhookRequestError('the server rejected our request due to an error in our request', false, 'error');
    case 429:
      return new WebhookRequestError('the server has received too many requests and has asked us to try again later', true, 'error');
    case 503:
      return new WebhookRequestError('the server is currently unable to handle the request', hasRetryAfter, 'error');
    case 504:
      return new WebhookRequestError(
        'the server was unable to return a response in the time allotted, but may still be processing the request',
        true,
        'timeout',
      );
    default:
      if (code >= 500) {
        return new WebhookRequestError(`an error on the server (${goQuote(text)}) has prevented the request from succeeding`, true, 'error');
      }
      return new WebhookRequestError(`the server responded with the status code ${code} but did not return more information`, hasRetryAfter, 'error');
  }
}
