// The etcd v3 backend over @grpc/grpc-js, from cl's own subset of etcd's API (proto/etcd-kv.proto). Keys live
// under a prefix (`/registry` by default, as kube-apiserver's --etcd-prefix). A stopped etcd makes calls fail
// fast (no wait-for-ready) and the channel reconnects on its own within about a second once etcd is back.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConflictError, prefixEnd, type KeyValue, type PutOptions, type RangeOptions, type Store } from './store';

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

interface PbKeyValue {
  key: Buffer;
  value: Buffer;
  create_revision: string | number;
  mod_revision: string | number;
  version: string | number;
}
interface PbHeader {
  revision: string | number;
}
type Unary<Req, Res> = (req: Req, meta: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: Res) => void) => void;
interface KVClient extends grpc.Client {
  Range: Unary<object, { header: PbHeader; kvs: PbKeyValue[]; more: boolean }>;
  Txn: Unary<object, { header: PbHeader; succeeded: boolean; responses: Array<{ response_range?: { kvs: PbKeyValue[] }; response_delete_range?: { deleted: string | number } }> }>;
}

const PROTO = join(__dirname, '..', 'proto', 'etcd-kv.proto');

let loaded: grpc.GrpcObject | undefined;
function services(): { KV: grpc.ServiceClientConstructor } {
  loaded ??= grpc.loadPackageDefinition(
    protoLoader.loadSync(PROTO, { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true }),
  );
  const pkg = loaded.etcdserverpb as grpc.GrpcObject;
  return { KV: pkg.KV as grpc.ServiceClientConstructor };
}

const num = (v: string | number) => Number(v);

export class EtcdStore implements Store {
  private readonly kv: KVClient;
  private readonly prefix: string;
  private readonly timeoutMs: number;

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
    };
    if (opts.connectTarget && secure) channelOptions['grpc.ssl_target_name_override'] = urls[0].hostname;
    this.kv = new (services().KV)(target, creds, channelOptions) as unknown as KVClient;
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
    };
  }

  private call<Res>(method: Unary<object, Res>, req: object, timeoutMs = this.timeoutMs, signal?: AbortSignal): Promise<Res> {
    return new Promise((resolve, reject) => {
      const call = method.call(this.kv, req, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) =>
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
      success: [{ request_put: { key: k, value: v } }],
      failure: [{ request_range: { key: k } }],
    });
    if (!res.succeeded) throw this.conflict(key, opts!.expectedRevision!, res.responses[0]?.response_range?.kvs ?? []);
    return { revision: num(res.header.revision) };
  }

  async delete(key: string, opts?: PutOptions): Promise<{ deleted: boolean; revision: number }> {
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

  async range(prefix: string, opts?: RangeOptions): Promise<{ kvs: KeyValue[]; revision: number; more: boolean }> {
    const start = this.full(prefix);
    const res = await this.call(this.kv.Range, { key: start, range_end: prefixEnd(start), limit: opts?.limit ?? 0 });
    return { kvs: res.kvs.map((kv) => this.toKv(kv)), revision: num(res.header.revision), more: res.more };
  }

  /** As kube-apiserver's store check: a read of `<prefix>/health`, answered or not within the deadline. */
  async ping(signal?: AbortSignal, timeoutMs = 2000): Promise<void> {
    await this.call(this.kv.Range, { key: this.full('health'), count_only: true }, timeoutMs, signal);
  }

  async close(): Promise<void> {
    this.kv.close();
  }
}
