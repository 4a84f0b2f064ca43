// The etcd v3 backend over @grpc/grpc-js, from cl's own subset of etcd's API (proto/etcd-kv.proto). Keys live
// under a prefix (`/registry` by default, as kube-apiserver's --etcd-prefix). A stopped etcd makes calls fail
// fast (no wait-for-ready) and the channel reconnects on its own within about a second once etcd is back.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EtcdWatch, ordersProgressRequests, type PbKeyValue, type WatchClient } from './etcd-watch';
import {
  CompactedError,
  ConflictError,
  FutureRevisionError,
  LeaseNotFoundError,
  prefixEnd,
  type DeleteOptions,
  type KeyValue,
  type PutOptions,
  type RangeOptions,
  type RangeResult,
  type Store,
  type StoreWatch,
  type WatchOptions,
} from './store';
import { WatchQueue } from './watch-queue';

export interface EtcdStoreOptions {
  /** Client URLs, e.g. `http://127.0.0.1:2379` (https needs `tls`). */
  servers: string[];
  prefix?: string;
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
  /** Per-call deadline for everything but health probes. */
  requestTimeoutMs?: number;
  /**
   * Where to connect instead of the servers' own addresses (for example a local forwarder that carries the
   * connection through an egress tunnel); the servers' host names are still used for TLS.
   */
  connectTarget?: string;
}

interface PbHeader {
  revision: string | number;
}
type Unary<Req, Res> = (req: Req, meta: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: Res) => void) => void;
interface KVClient extends grpc.Client {
  Range: Unary<object, { header: PbHeader; kvs: PbKeyValue[]; more: boolean; count: string | number }>;
  Txn: Unary<object, { header: PbHeader; succeeded: boolean; responses: Array<{ response_range?: { kvs: PbKeyValue[] }; response_delete_range?: { deleted: string | number } }> }>;
  Compact: Unary<object, { header: PbHeader }>;
}
interface LeaseClient extends grpc.Client {
  LeaseGrant: Unary<object, { header: PbHeader; ID: string | number; TTL: string | number; error: string }>;
  LeaseRevoke: Unary<object, { header: PbHeader }>;
}
interface MaintenanceClient extends grpc.Client {
  Status: Unary<object, { header: PbHeader; version: string }>;
}

const PROTO = join(__dirname, '..', 'proto', 'etcd-kv.proto');

let loaded: grpc.GrpcObject | undefined;
type Services = Record<'KV' | 'Watch' | 'Lease' | 'Maintenance', grpc.ServiceClientConstructor>;
function services(): Services {
  loaded ??= grpc.loadPackageDefinition(
    protoLoader.loadSync(PROTO, { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true }),
  );
  const pkg = loaded.etcdserverpb as grpc.GrpcObject;
  return { KV: pkg.KV, Watch: pkg.Watch, Lease: pkg.Lease, Maintenance: pkg.Maintenance } as Services;
}

const num = (v: string | number) => Number(v);

const FLOW_CONTROL_WINDOW = 16 * 1024 * 1024;

/** etcd's errors for a revision outside the kept history, and for an unknown lease (their gRPC details text). */
function translate(err: grpc.ServiceError, revision?: number, lease?: number): Error {
  const details = err.details ?? '';
  if (details.includes('required revision has been compacted')) return new CompactedError(revision ?? 0, 0);
  if (details.includes('required revision is a future revision')) return new FutureRevisionError(revision ?? 0, 0);
  if (details.includes('requested lease not found')) return new LeaseNotFoundError(lease ?? 0);
  return err;
}

export class EtcdStore implements Store {
  private readonly kv: KVClient;
  private readonly watcher: WatchClient;
  private readonly lease: LeaseClient;
  private readonly watches = new Set<EtcdWatch>();
  private readonly prefix: string;
  private readonly timeoutMs: number;
  /** Where to ask each server for its version: the shared channel, or each of several servers on its own. */
  private readonly statusClients: () => MaintenanceClient[];
  private progressCheck: Promise<boolean> | null = null;
  /** Whether every server orders its answers to progress requests after the events before them (learned once). */
  private ordered = false;

  constructor(opts: EtcdStoreOptions) {
    if (opts.servers.length === 0) throw new Error('at least one store server is required');
    const urls = opts.servers.map((s) => new URL(s));
    const secure = urls[0].protocol === 'https:';
    const hosts = urls.map((u) => `${u.hostname.replace(/^\[|\]$/g, '')}:${u.port || 2379}`);
    // grpc-js picks the first reachable of several IPv4 addresses with the ipv4: scheme.
    const target =
      opts.connectTarget ?? (hosts.length > 1 && hosts.every((h) => /^[\d.]+:\d+$/.test(h)) ? `ipv4:${hosts.join(',')}` : hosts[0]);
    const creds = secure
      ? grpc.credentials.createSsl(
          opts.tls?.caFile ? readFileSync(opts.tls.caFile) : null,
          opts.tls?.keyFile ? readFileSync(opts.tls.keyFile) : null,
          opts.tls?.certFile ? readFileSync(opts.tls.certFile) : null,
        )
      : grpc.credentials.createInsecure();
    const channelOptions: grpc.ChannelOptions = {
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 1000,
      'grpc.keepalive_time_ms': 30_000,
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
      // HTTP/2 flow control windows (stream and connection) of 16 MiB, the ceiling grpc-go's (etcd's own client's)
      // dynamic windows grow to. With the default 64 KiB, etcd sends one window of watch events per turn of a busy
      // event loop: ~300 pod events a second into a loop that is never idle (bench/store), and a 1,000-node
      // cluster's watch cache fell behind etcd by tens of thousands of revisions.
      'grpc-node.flow_control_window': FLOW_CONTROL_WINDOW,
    };
    if (opts.connectTarget && secure) channelOptions['grpc.ssl_target_name_override'] = urls[0].hostname;
    this.kv = new (services().KV)(target, creds, channelOptions) as unknown as KVClient;
    // The three services share one channel (one connection), as etcd's own client does.
    const channelOverride = this.kv.getChannel();
    this.watcher = new (services().Watch)(target, creds, { ...channelOptions, channelOverride }) as unknown as WatchClient;
    this.lease = new (services().Lease)(target, creds, { ...channelOptions, channelOverride }) as unknown as LeaseClient;
    // Several servers behind one channel: the watches may move to any of them, so each is asked (as upstream asks
    // every endpoint); one client of its own per server, closed after the answer.
    this.statusClients =
      hosts.length > 1 && !opts.connectTarget
        ? () => hosts.map((h) => new (services().Maintenance)(h, creds, channelOptions) as unknown as MaintenanceClient)
        : () => [new (services().Maintenance)(target, creds, { ...channelOptions, channelOverride }) as unknown as MaintenanceClient];
    this.prefix = (opts.prefix ?? '/registry').replace(/\/$/, '');
    this.timeoutMs = opts.requestTimeoutMs ?? 10_000;
  }

  private full(key: string): Buffer {
    return Buffer.from(this.prefix + (key.startsWith('/') ? key : '/' + key));
  }

  private strip(k: Buffer): string {
    return k.toString().slice(this.prefix.length);
  }

  private toKv(kv: PbKeyValue): KeyValue {
    return {
      key: this.strip(kv.key),
      value: kv.value,
      createRevision: num(kv.create_revision),
      modRevision: num(kv.mod_revision),
      version: num(kv.version),
      lease: num(kv.lease),
    };
  }

  private call<Res>(method: Unary<object, Res>, req: object, timeoutMs = this.timeoutMs, signal?: AbortSignal, client: grpc.Client = this.kv): Promise<Res> {
    return new Promise((resolve, reject) => {
      const call = method.call(client, req, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) =>
        err ? reject(err) : resolve(res),
      ) as unknown as grpc.ClientUnaryCall | undefined;
      signal?.addEventListener('abort', () => call?.cancel(), { once: true });
    });
  }

  async get(key: string): Promise<KeyValue | null> {
    const res = await this.call(this.kv.Range, { key: this.full(key) });
    return res.kvs.length ? this.toKv(res.kvs[0]) : null;
  }

  async put(key: string, value: Buffer | string, opts?: PutOptions): Promise<{ revision: number }> {
    const k = this.full(key);
    const v = typeof value === 'string' ? Buffer.from(value) : value;
    const compare = opts?.expectedRevision === undefined ? [] : [{ key: k, target: 'MOD', result: 'EQUAL', mod_revision: opts.expectedRevision }];
    const res = await this.call(this.kv.Txn, {
      compare,
      success: [{ request_put: { key: k, value: v, lease: opts?.lease ?? 0 } }],
      failure: [{ request_range: { key: k } }],
    }).catch((e: grpc.ServiceError) => Promise.reject(translate(e, undefined, opts?.lease)));
    if (!res.succeeded) throw this.conflict(key, opts!.expectedRevision!, res.responses[0]?.response_range?.kvs ?? []);
    return { revision: num(res.header.revision) };
  }

  async delete(key: string, opts?: DeleteOptions): Promise<{ deleted: boolean; revision: number }> {
    const k = this.full(key);
    const compare = opts?.expectedRevision === undefined ? [] : [{ key: k, target: 'MOD', result: 'EQUAL', mod_revision: opts.expectedRevision }];
    const res = await this.call(this.kv.Txn, {
      compare,
      success: [{ request_delete_range: { key: k } }],
      failure: [{ request_range: { key: k } }],
    });
    if (!res.succeeded) throw this.conflict(key, opts!.expectedRevision!, res.responses[0]?.response_range?.kvs ?? []);
    return { deleted: num(res.responses[0]?.response_delete_range?.deleted ?? 0) > 0, revision: num(res.header.revision) };
  }

  private conflict(key: string, expected: number, kvs: PbKeyValue[]) {
    return new ConflictError(key, expected, kvs.length ? num(kvs[0].mod_revision) : 0);
  }

  async range(prefix: string, opts: RangeOptions = {}): Promise<RangeResult> {
    const start = this.full(prefix);
    const from = opts.startKey !== undefined && opts.startKey > prefix ? this.full(opts.startKey) : start;
    const revision = opts.revision && opts.revision > 0 ? opts.revision : 0;
    const res = await this.call(this.kv.Range, { key: from, range_end: prefixEnd(start), limit: opts.limit ?? 0, revision }).catch(
      (e: grpc.ServiceError) => Promise.reject(translate(e, revision)),
    );
    // etcd's header carries the newest revision even for a read at an older one; the snapshot is `revision`.
    return { kvs: res.kvs.map((kv) => this.toKv(kv)), revision: revision || num(res.header.revision), more: res.more };
  }

  async currentRevision(): Promise<number> {
    // A count of one key: etcd answers with the header revision after a quorum read, without reading values.
    const res = await this.call(this.kv.Range, { key: this.full('health'), count_only: true });
    return num(res.header.revision);
  }

  async count(prefix: string): Promise<{ count: number; revision: number }> {
    const start = this.full(prefix);
    const res = await this.call(this.kv.Range, { key: start, range_end: prefixEnd(start), count_only: true });
    return { count: num(res.count), revision: num(res.header.revision) };
  }

  /**
   * Whether progress requests can be used on this etcd (upstream's RequestWatchProgress check: etcd 3.4.31+ or
   * 3.5.13+ on every server). A check that fails counts as no, and the next watch asks again.
   */
  private progressOrdered(): Promise<boolean> {
    this.progressCheck ??= Promise.all(
      this.statusClients().map((client) =>
        this.call(client.Status, {}, this.timeoutMs, undefined, client).finally(() => {
          if (client.getChannel() !== this.kv.getChannel()) client.close();
        }),
      ),
    ).then(
      (answers) => (this.ordered = answers.every((a) => ordersProgressRequests(a.version))),
      () => {
        this.progressCheck = null;
        return false;
      },
    );
    return this.progressCheck;
  }

  watch(prefix: string, opts: WatchOptions = {}): StoreWatch {
    // eslint-disable-next-line prefer-const -- the queue's callbacks need the watch, which needs the queue
    let watch: EtcdWatch;
    const queue = new WatchQueue({
      afterRevision: opts.afterRevision,
      maxBufferedEvents: opts.maxBufferedEvents,
      progressIntervalMs: opts.progressIntervalMs,
      requestProgress: () => watch.requestProgress(),
      progressOnRequest: this.progressOrdered(),
      release: () => {
        watch.stop();
        this.watches.delete(watch);
      },
    });
    watch = new EtcdWatch(
      this.watcher,
      this.full(prefix),
      (kv) => this.toKv(kv),
      queue,
      async () => (await this.count(prefix)).revision,
      () => this.ordered,
    );
    this.watches.add(watch);
    watch.start();
    return queue;
  }

  async compact(revision: number): Promise<void> {
    await this.call(this.kv.Compact, { revision }).catch((e: grpc.ServiceError) => Promise.reject(translate(e, revision)));
  }

  async grantLease(ttlSeconds: number): Promise<number> {
    // etcd picks 64-bit ids, which a JS number cannot hold exactly; ask for an id that it can (etcd takes a
    // client's id unless it is in use, and then answers with an error and we pick another).
    for (let attempt = 0; ; attempt++) {
      const id = randomInt(1, 2 ** 48);
      const res = await this.call(this.lease.LeaseGrant, { TTL: ttlSeconds, ID: id }, this.timeoutMs, undefined, this.lease).catch(
        (e: grpc.ServiceError) => {
          if (attempt < 3 && (e.details ?? '').includes('lease already exists')) return null;
          throw e;
        },
      );
      if (!res) continue;
      if (res.error) throw new Error(`etcd refused the lease: ${res.error}`);
      return num(res.ID);
    }
  }

  async revokeLease(id: number): Promise<void> {
    await this.call(this.lease.LeaseRevoke, { ID: id }, this.timeoutMs, undefined, this.lease).catch((e: grpc.ServiceError) =>
      Promise.reject(translate(e, undefined, id)),
    );
  }

  /** As kube-apiserver's store check: a read of `<prefix>/health`, answered or not within the deadline. */
  async ping(signal?: AbortSignal, timeoutMs = 2000): Promise<void> {
    await this.call(this.kv.Range, { key: this.full('health'), count_only: true }, timeoutMs, signal);
  }

  async close(): Promise<void> {
    for (const w of [...this.watches]) w.queue.fail(new Error('store closed'));
    this.watcher.close();
    this.lease.close();
    this.kv.close();
  }
}
