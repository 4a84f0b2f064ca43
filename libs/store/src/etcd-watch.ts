// One etcd watch as a resumable stream: a Watch RPC with prev_kv, restarted from the last delivered revision
// whenever the stream breaks (etcd restarted, connection dropped), so the consumer sees every change exactly
// once across the break. Only a compacted start revision, or an error that retrying cannot fix, ends it.
import * as grpc from '@grpc/grpc-js';
import { CompactedError, prefixEnd, type KeyValue, type StoreEvent } from './store';
import { WatchQueue } from './watch-queue';

export interface PbKeyValue {
  key: Buffer;
  value: Buffer;
  create_revision: string | number;
  mod_revision: string | number;
  version: string | number;
  lease: string | number;
}

interface PbWatchResponse {
  header?: { revision: string | number };
  created: boolean;
  canceled: boolean;
  compact_revision: string | number;
  cancel_reason: string;
  events: Array<{ type: 'PUT' | 'DELETE'; kv: PbKeyValue; prev_kv: PbKeyValue | null }>;
}

export interface WatchClient extends grpc.Client {
  Watch(meta?: grpc.Metadata, opts?: grpc.CallOptions): grpc.ClientDuplexStream<object, PbWatchResponse>;
}

/** Stream failures worth a new stream: etcd or the connection went away, or the server shed load. */
const RETRYABLE = new Set([grpc.status.UNAVAILABLE, grpc.status.UNKNOWN, grpc.status.INTERNAL, grpc.status.CANCELLED, grpc.status.RESOURCE_EXHAUSTED, grpc.status.DEADLINE_EXCEEDED]);
const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 1000;

export class EtcdWatch {
  private stream: grpc.ClientDuplexStream<object, PbWatchResponse> | null = null;
  private backoffMs = MIN_BACKOFF_MS;
  private retry: NodeJS.Timeout | null = null;
  /** The revision the open stream was created after. */
  private after = 0;

  constructor(
    private readonly client: WatchClient,
    private readonly key: Buffer,
    private readonly toKv: (kv: PbKeyValue) => KeyValue,
    readonly queue: WatchQueue,
    private readonly currentRevision: () => Promise<number>,
  ) {}

  start(): void {
    if (this.queue.closed) return;
    const resume = this.queue.resumeAfter;
    if (resume >= 0) {
      this.open(resume);
      return;
    }
    // A watch "from now" still names its start revision: etcd 3.4 treats start_revision 0 as revision 0 once the
    // store has been compacted, and cancels the watch as compacted at its first event.
    this.currentRevision().then(
      (revision) => this.open(revision),
      () => this.retryLater(),
    );
  }

  private open(after: number) {
    if (this.queue.closed) return;
    const stream = this.client.Watch();
    this.stream = stream;
    this.after = after;
    stream.on('data', (res: PbWatchResponse) => this.receive(res));
    stream.on('error', (err: grpc.ServiceError) => this.broken(stream, err));
    stream.on('end', () => this.broken(stream, null));
    // etcd's start revision is inclusive.
    stream.write({ create_request: { key: this.key, range_end: prefixEnd(this.key), start_revision: after + 1, prev_kv: true } });
  }

  requestProgress(): void {
    this.stream?.write({ progress_request: {} });
  }

  stop(): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const stream = this.stream;
    this.stream = null;
    stream?.cancel();
  }

  private receive(res: PbWatchResponse) {
    if (res.canceled) {
      const compacted = Number(res.compact_revision);
      this.stop();
      this.queue.fail(
        compacted > 0 ? new CompactedError(this.queue.resumeAfter + 1, compacted) : new Error(`watch canceled by etcd: ${res.cancel_reason || 'no reason given'}`),
      );
      return;
    }
    if (res.created) {
      this.backoffMs = MIN_BACKOFF_MS;
      this.queue.started(this.after);
      return;
    }
    if (res.events.length) {
      this.queue.push(res.events.map((e) => this.toEvent(e)));
    } else {
      this.queue.progress(Number(res.header?.revision ?? 0));
    }
  }

  private toEvent(e: PbWatchResponse['events'][number]): StoreEvent {
    return { type: e.type === 'DELETE' ? 'DELETE' : 'PUT', kv: this.toKv(e.kv), prevKv: e.prev_kv ? this.toKv(e.prev_kv) : null };
  }

  private broken(stream: grpc.ClientDuplexStream<object, PbWatchResponse>, err: grpc.ServiceError | null) {
    if (stream !== this.stream || this.queue.closed) return;
    this.stream = null;
    if (err && !RETRYABLE.has(err.code)) {
      this.queue.fail(new Error(`etcd watch failed: ${err.details || err.message}`));
      return;
    }
    this.retryLater();
  }

  /** Resume from the last delivered revision once etcd answers again; the channel reconnects on its own. */
  private retryLater() {
    if (this.queue.closed) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.start();
    }, this.backoffMs);
    this.retry.unref();
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
  }
}
