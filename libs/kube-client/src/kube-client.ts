// The REST client: JSON calls on API paths, list paging and watches, all sharing one connection pool and one
// token bucket, as a client-go rest.RESTClient built from one rest.Config.
import type { ClientRequest, IncomingMessage } from 'node:http';
import { ApiError, isGone } from './api-error';
import { acceptFor, JSON_MEDIA_TYPE, type ClientConfig } from './client-config';
import { queryString, type Query } from './resource-path';
import { ClientClosedError, tokenBucketFor, type TokenBucket } from './token-bucket';
import { readBody, Transport } from './transport';
import { requestSlotsFor, type RequestSlots } from './request-slots';
import { WatchStream, type WatchEventHandler, type WatchHandle } from './watch-stream';

export type PatchType = 'strategic' | 'merge' | 'json';

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  strategic: 'application/strategic-merge-patch+json',
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
};

export interface ListResult<T> {
  metadata: { resourceVersion: string; continue?: string };
  items: T[];
}

export const DEFAULT_USER_AGENT = `cl-kube-client/0.1.0 (${process.platform}/${process.arch}) node/${process.version}`;

// Response bodies are whatever the server sent; `T = any` lets a caller that does not name the kind read fields,
// as with client-go's unstructured objects. Callers that know the kind pass T.
/* eslint-disable @typescript-eslint/no-explicit-any */
export class KubeClient {
  private readonly transport: Transport;
  private readonly limiter: TokenBucket | null;
  private readonly closing = new AbortController();
  private readonly inFlight = new Set<ClientRequest>();
  private readonly watches = new Set<WatchStream>();
  private readonly headers: Record<string, string>;
  private readonly slots: RequestSlots | null;

  constructor(private readonly cfg: ClientConfig) {
    this.transport = new Transport(cfg);
    this.slots = requestSlotsFor(cfg.maxConnections);
    this.limiter = tokenBucketFor(cfg.qps, cfg.burst);
    this.headers = { Accept: acceptFor(cfg.contentType), 'User-Agent': cfg.userAgent ?? DEFAULT_USER_AGENT };
  }

  get<T = any>(path: string, query?: Query): Promise<T> {
    return this.call<T>('GET', path + queryString(query));
  }

  /** A list; when `query.limit` is set, the `continue` pages are fetched and joined, as client-go's pager. */
  async list<T = any>(path: string, query: Query = {}): Promise<ListResult<T>> {
    const first = await this.call<ListResult<T>>('GET', path + queryString(query));
    const items = first.items ?? [];
    let token = first.metadata?.continue;
    if (query.limit === undefined) return { metadata: first.metadata, items };
    while (token) {
      // A continue token carries the list's resourceVersion; sending one too is a 422.
      const page = await this.call<ListResult<T>>('GET', path + queryString({ ...query, resourceVersion: undefined, resourceVersionMatch: undefined, continue: token })).catch((e: unknown) => {
        // The token outlived the server's history: one full list instead, as the pager's FullListIfExpired.
        if (isGone(e)) return null;
        throw e;
      });
      if (!page) return this.list<T>(path, { ...query, limit: undefined, continue: undefined });
      items.push(...(page.items ?? []));
      token = page.metadata?.continue;
    }
    return { metadata: { resourceVersion: first.metadata.resourceVersion }, items };
  }

  /** POST to the collection path. */
  create<T = any>(path: string, body: unknown, query?: Query): Promise<T> {
    return this.call<T>('POST', path + queryString(query), body);
  }

  /** PUT of the whole object; its metadata.resourceVersion makes it conditional. */
  update<T = any>(path: string, body: unknown): Promise<T> {
    return this.call<T>('PUT', path, body);
  }

  patch<T = any>(path: string, body: unknown, type: PatchType = 'strategic'): Promise<T> {
    return this.call<T>('PATCH', path, body, PATCH_CONTENT_TYPES[type]);
  }

  /** DELETE with `options` as the DeleteOptions body (kind and apiVersion added). */
  delete<T = any>(path: string, options?: Record<string, unknown>): Promise<T> {
    const body = options ? { kind: 'DeleteOptions', apiVersion: path.startsWith('/api/') ? 'v1' : 'meta.k8s.io/v1', ...options } : undefined;
    return this.call<T>('DELETE', path, body);
  }

  /** A watch of `path` (watch=true is added); events go to `onEvent` in order until the stream ends or stop(). */
  watch(path: string, query: Query, onEvent: WatchEventHandler): WatchHandle {
    const stream = new WatchStream(onEvent);
    if (this.closing.signal.aborted) {
      stream.finish(new ClientClosedError());
      return stream;
    }
    this.watches.add(stream);
    void stream.done.then(() => this.watches.delete(stream));
    const start = () => {
      if (stream.stopped) return;
      stream.attach(this.transport.send({ method: 'GET', path: path + queryString({ ...query, watch: true }), headers: this.headers }, (res) => stream.respond(res)));
    };
    if (this.cfg.throttleWatches && this.limiter) this.limiter.wait(this.closing.signal).then(start, (e: Error) => stream.finish(e));
    else start();
    return stream;
  }

  /** Ends every watch, fails waiting and running requests with ClientClosedError, and closes the sockets. */
  close(): void {
    if (this.closing.signal.aborted) return;
    this.closing.abort();
    for (const w of [...this.watches]) w.stop();
    for (const req of [...this.inFlight]) req.destroy(new ClientClosedError());
    this.transport.destroy();
  }

  private async call<T>(method: string, pathAndQuery: string, body?: unknown, contentType = JSON_MEDIA_TYPE): Promise<T> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers = payload ? { ...this.headers, 'Content-Type': contentType } : this.headers;
    const maxRetries = this.cfg.maxRetries ?? DEFAULT_MAX_RETRIES;
    for (let attempt = 0; ; attempt++) {
      if (this.closing.signal.aborted) throw new ClientClosedError();
      await this.limiter?.wait(this.closing.signal);
      const release = await this.slots?.acquire(this.closing.signal);
      const { res, data } = await this.exchange(method, pathAndQuery, headers, payload).finally(release);
      const status = res.statusCode ?? 0;
      if (status >= 200 && status <= 299) return decodeBody(data, res.headers['content-type']) as T;
      const wait = attempt < maxRetries ? retryAfterSeconds(status, res.headers['retry-after']) : undefined;
      if (wait === undefined) throw ApiError.fromResponse(status, data, method, res.headers['content-type']);
      await sleep(wait * 1000, this.closing.signal);
    }
  }

  private exchange(method: string, path: string, headers: Record<string, string>, body: Buffer | undefined, retried = false): Promise<{ res: IncomingMessage; data: Buffer }> {
    return new Promise((resolve, reject) => {
      let answered = false;
      let timer: NodeJS.Timeout | undefined;
      const req = this.transport.send({ method, path, headers, body }, (res) => {
        answered = true;
        readBody(res).then((data) => {
          clearTimeout(timer);
          resolve({ res, data });
        }, reject);
      });
      this.inFlight.add(req);
      const timeout = this.cfg.requestTimeoutMs;
      if (timeout && timeout > 0) {
        timer = setTimeout(() => req.destroy(Object.assign(new Error(`${method} ${path}: no complete response within ${timeout} ms`), { code: 'ETIMEDOUT' })), timeout);
      }
      req.on('error', (e: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed while this request went out on it (Go's errServerClosedIdle):
        // nothing was answered, so it is sent once more on a fresh connection, as Go's transport does.
        if (!answered && !retried && req.reusedSocket && RESET_CODES.has(e.code ?? '') && !this.closing.signal.aborted) {
          clearTimeout(timer);
          this.exchange(method, path, headers, body, true).then(resolve, reject);
        } else reject(e);
      });
      req.on('close', () => {
        clearTimeout(timer);
        this.inFlight.delete(req);
      });
    });
  }
}

const DEFAULT_MAX_RETRIES = 10;
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE']);

/**
 * client-go's checkWait: a 429 or 5xx answer with a Retry-After of whole seconds asks to be tried again after
 * them; anything else (no header, a date, another status) is final.
 */
export function retryAfterSeconds(status: number, header: string | string[] | undefined): number | undefined {
  if (status !== 429 && (status < 500 || status > 599)) return undefined;
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/** Resolves after `ms`, or rejects with ClientClosedError as soon as the client closes. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      reject(new ClientClosedError());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', done);
      resolve();
    }, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A JSON body parsed; a body the server says is something else (/healthz, pod logs) as text; none as undefined. */
function decodeBody(data: Buffer, contentType: string | undefined): unknown {
  if (data.length === 0) return undefined;
  const text = data.toString('utf8');
  return !contentType || /json/i.test(contentType) ? JSON.parse(text) : text;
}
