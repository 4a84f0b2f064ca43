// One watch response read as the API server writes it: a chunked stream of newline-terminated JSON objects
// `{"type":...,"object":...}`. The handle's `done` settles once, with why the stream ended.
import type { ClientRequest, IncomingMessage } from 'node:http';
import { ApiError } from './api-error';
import { readBody } from './transport';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

// The object is whatever the server sent (a resource, a partial bookmark object or a Status): `any` so a
// handler can read the fields of the kind it watches without a cast, as with client-go's runtime.Object.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type WatchEventHandler = (type: WatchEventType, object: any) => void;

export interface WatchHandle {
  /** Resolves when the stream ends: undefined on a clean end (server timeout, stop()), the error otherwise (an ERROR event becomes its ApiError). */
  done: Promise<Error | undefined>;
  stop(): void;
}

const EVENT_TYPES = new Set<string>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

export class WatchStream implements WatchHandle {
  readonly done: Promise<Error | undefined>;
  private settle!: (e: Error | undefined) => void;
  private finished = false;
  private req: ClientRequest | null = null;
  private partial = '';

  constructor(private readonly onEvent: WatchEventHandler) {
    this.done = new Promise((resolve) => (this.settle = resolve));
  }

  get stopped(): boolean {
    return this.finished;
  }

  /** Attaches the request once it is sent (after the rate limiter, if any). */
  attach(req: ClientRequest): void {
    this.req = req;
    req.on('error', (e) => this.finish(e));
    if (this.finished) req.destroy();
  }

  /** Reads the response: the event stream on 200, an ApiError otherwise. */
  respond(res: IncomingMessage): void {
    if (res.statusCode !== 200) {
      readBody(res).then(
        (body) => this.finish(ApiError.fromResponse(res.statusCode ?? 0, body, 'GET', res.headers['content-type'])),
        (e: Error) => this.finish(e),
      );
      return;
    }
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => this.consume(chunk));
    res.on('end', () => this.finish(this.partial.trim() ? new Error(`watch stream ended inside an event: ${this.partial.slice(0, 200)}`) : undefined));
    res.on('error', (e) => this.finish(e));
    res.on('close', () => {
      if (!res.complete) this.finish(Object.assign(new Error('watch stream closed before it ended'), { code: 'ECONNRESET' }));
    });
  }

  stop(): void {
    this.finish(undefined);
  }

  finish(e: Error | undefined): void {
    if (this.finished) return;
    this.finished = true;
    this.req?.destroy();
    this.settle(e);
  }

  private consume(chunk: string) {
    const text = this.partial + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1 && !this.finished; nl = text.indexOf('\n', start)) {
      const line = text.slice(start, nl);
      start = nl + 1;
      if (line.trim() !== '') this.deliver(line);
    }
    this.partial = this.finished ? '' : text.slice(start);
  }

  private deliver(line: string) {
    let event: { type?: unknown; object?: unknown };
    try {
      event = JSON.parse(line) as typeof event;
    } catch (e) {
      return this.finish(new Error(`watch: undecodable event: ${(e as Error).message}`));
    }
    if (typeof event.type !== 'string' || !EVENT_TYPES.has(event.type)) return this.finish(new Error(`watch: unknown event type ${JSON.stringify(event.type)}`));
    try {
      this.onEvent(event.type as WatchEventType, event.object);
    } catch (e) {
      return this.finish(e instanceof Error ? e : new Error(String(e)));
    }
    // The server ends a watch after an ERROR event (410 Expired and the like); the handle ends with it.
    if (event.type === 'ERROR') this.finish(ApiError.fromWatchEvent(event.object));
  }
}
