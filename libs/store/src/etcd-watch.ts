// One etcd watch as a resumable stream: a Watch RPC with prev_kv, restarted from the last delivered revision
// whenever the stream breaks (etcd restarted, connection dropped), so the consumer sees every change exactly
// once across the break. Only a compacted start revision, or an error that retrying cannot fix, ends it.
//
// Progress notifications are passed on only where etcd sends them after the events before them: its own periodic
// ones (progress_notify: sent to a watcher that has caught up, on the stream of its events), and answers to a
// progress request from a server that orders them. etcd before 3.4.31 / 3.5.13 answers a request at once, on a
// channel of its own, with its current revision: ahead of events still queued for the stream and of all the
// history of a watch from a past revision (sent later, by a loop that runs every 100 ms); a consumer that took
// such an answer as "everything up to here" skipped that history (and a stream resumed after it, too).
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
  watch_id: string | number;
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
/** The watch_id of an answer to a progress request (it is for the whole stream, not one watcher). */
const STREAM_WIDE = -1;

/**
 * Whether an etcd server of this version answers a progress request after the events before it: fixed in 3.4.31
 * and 3.5.13 (etcd-io/etcd#15220, #17507), the versions upstream's RequestWatchProgress check requires.
 */
export function ordersProgressRequests(version: string): boolean {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (!m) return false;
  const [major, minor, patch] = m.slice(1).map(Number);
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}

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
    /** Whether the server is known to order its answers to progress requests (false until known). */
    private readonly ordersProgress: () => boolean = () => false,
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
    // etcd's start revision is inclusive. progress_notify: etcd's periodic notifications to an idle watcher, as
    // upstream's cacher asks for (every 10 minutes by default, --experimental-watch-progress-notify-interval).
    stream.write({ create_request: { key: this.key, range_end: prefixEnd(this.key), start_revision: after + 1, prev_kv: true, progress_notify: true } });
  }

  /** Asks only a server whose answer comes after the events before it; another's answer could not be used. */
  requestProgress(): void {
    if (this.ordersProgress()) this.stream?.write({ progress_request: {} });
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
    } else if (Number(res.watch_id) !== STREAM_WIDE || this.ordersProgress()) {
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
