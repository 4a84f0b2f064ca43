// The store against its raw baselines, measured in the same run:
// - SQLite: puts/s, watch delivery latency (put to event) and a 10,000-key range through SqliteStore, against
//   the same SQL work done with better-sqlite3 directly (a revision-log row read and insert per put, in one
//   transaction, same pragmas; a plain indexed range for the read).
// - etcd (Debian's etcd-server on loopback): the same through EtcdStore, against a bare gRPC client of etcd's
//   KV and Watch services (one Put per put, one Range, one Watch stream).
// - etcd, catch-up into a busy process: a watch replaying 3,000 pod-sized (6 KiB) changes into a process whose event
//   loop is never idle (20 ms turns, as a loaded API server's), through EtcdStore and through bare gRPC watches
//   with grpc-js's default 64 KiB flow-control windows and with 16 MiB ones (grpc-go's ceiling).
// Run: node -r @swc-node/register bench/store/run.ts [puts=2000] [rounds=3]
// Rounds alternate the store and its baseline so other load on the machine hits both alike; ratios are per
// round and the median is reported. Prints a table and one JSON line.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdStore, SqliteStore, type Store } from '@cl/store';
import { startEtcd } from '@cl/testing';

const PUTS = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 3);
const RANGE_KEYS = 10_000;
const WATCH_SAMPLES = 500;
const VALUE = Buffer.alloc(1024, 'x');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

/** The operations measured, for the store and for its raw baseline alike. */
interface Subject {
  put(key: string): Promise<unknown> | unknown;
  /** Starts a watch on `prefix` that calls `seen` with each event's key. */
  watch(prefix: string, seen: (key: string) => void): Promise<() => void>;
  range(prefix: string): Promise<number> | number;
}

async function putsPerSecond(s: Subject, tag: string): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < PUTS; i++) await s.put(`/bench/${tag}/k${i % 500}`);
  return PUTS / (ms(t0) / 1000);
}

async function watchLatencies(s: Subject, tag: string): Promise<number[]> {
  const prefix = `/watch/${tag}/`;
  const pending = new Map<string, () => void>();
  const stop = await s.watch(prefix, (key) => pending.get(key)?.());
  const out: number[] = [];
  for (let i = 0; i < WATCH_SAMPLES; i++) {
    const key = `${prefix}k${i}`;
    const t0 = process.hrtime.bigint();
    const arrived = new Promise<void>((resolve) => pending.set(key, resolve));
    await s.put(key);
    await arrived;
    out.push(ms(t0));
    pending.delete(key);
  }
  stop();
  return out;
}

async function rangeMs(s: Subject, prefix: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint();
    const n = await s.range(prefix);
    times.push(ms(t0));
    if (n !== RANGE_KEYS) throw new Error(`range returned ${n} keys, expected ${RANGE_KEYS}`);
  }
  return median(times);
}

function storeSubject(store: Store): Subject {
  return {
    put: (key) => store.put(key, VALUE),
    watch: async (prefix, seen) => {
      const w = store.watch(prefix);
      await w.ready;
      void (async () => {
        try {
          for await (const b of w) for (const e of b.events) seen(e.kv.key);
        } catch {
          /* closed */
        }
      })();
      return () => w.close();
    },
    range: async (prefix) => (await store.range(prefix)).kvs.length,
  };
}

/** better-sqlite3 doing the revision-log work of a put by hand, and a plain indexed range. */
function rawSqlite(file: string): Subject & { close(): void } {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE log (revision INTEGER PRIMARY KEY, key TEXT NOT NULL, deleted INTEGER NOT NULL, create_revision INTEGER NOT NULL,
             prev_revision INTEGER NOT NULL, version INTEGER NOT NULL, value BLOB, old_value BLOB);
           CREATE INDEX log_key ON log (key, revision);`);
  const latest = db.prepare('SELECT * FROM log WHERE key = ? ORDER BY revision DESC LIMIT 1');
  const insert = db.prepare('INSERT INTO log (key, deleted, create_revision, prev_revision, version, value, old_value) VALUES (?, 0, ?, ?, ?, ?, ?)');
  const range = db.prepare('SELECT key, value FROM log WHERE key >= ? AND key < ? ORDER BY key');
  const listeners = new Map<string, (key: string) => void>();
  const put = db.transaction((key: string) => {
    const prev = latest.get(key) as { revision: number; create_revision: number; version: number; value: Buffer } | undefined;
    insert.run(key, prev?.create_revision ?? 0, prev?.revision ?? 0, (prev?.version ?? 0) + 1, VALUE, prev?.value ?? null);
  });
  return {
    put: (key) => {
      put(key);
      // The baseline's "watch": a direct call after the commit, the least any in-process delivery can cost.
      for (const [prefix, cb] of listeners) if (key.startsWith(prefix)) cb(key);
    },
    watch: async (prefix, seen) => {
      listeners.set(prefix, seen);
      return () => listeners.delete(prefix);
    },
    range: (prefix) => range.all(prefix, prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)).length,
    close: () => db.close(),
  };
}

type Unary = (req: object, cb: (err: Error | null, res: { kvs?: unknown[] }) => void) => void;

/** etcd's services from the store's own proto subset, for the bare baselines. */
function etcdPackage(): grpc.GrpcObject {
  const def = protoLoader.loadSync(join(__dirname, '..', '..', 'libs', 'store', 'proto', 'etcd-kv.proto'), { keepCase: true, longs: Number, defaults: true, oneofs: true });
  return grpc.loadPackageDefinition(def).etcdserverpb as grpc.GrpcObject;
}

/** A bare gRPC client of etcd: Put, Range and Watch straight from the proto, nothing in between. */
function rawEtcd(url: string): Subject & { close(): void } {
  const pkg = etcdPackage();
  const target = new URL(url).host;
  // The same receive limit as EtcdStore: a 10,000-key range of 1 KiB values is past gRPC's 4 MiB default.
  const kv = new (pkg.KV as grpc.ServiceClientConstructor)(target, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': 64 * 1024 * 1024 }) as unknown as grpc.Client & Record<'Put' | 'Range', Unary>;
  const watch = new (pkg.Watch as grpc.ServiceClientConstructor)(target, grpc.credentials.createInsecure(), { channelOverride: kv.getChannel() }) as unknown as grpc.Client & {
    Watch(): grpc.ClientDuplexStream<object, { created: boolean; events: Array<{ kv: { key: Buffer } }> }>;
  };
  const call = (m: Unary, req: object) => new Promise<{ kvs?: unknown[] }>((resolve, reject) => m.call(kv, req, (e, r) => (e ? reject(e) : resolve(r))));
  const end = (k: string) => Buffer.from(k.slice(0, -1) + String.fromCharCode(k.charCodeAt(k.length - 1) + 1));
  return {
    put: (key) => call(kv.Put, { key: Buffer.from(key), value: VALUE }),
    watch: (prefix, seen) =>
      new Promise((resolve) => {
        const stream = watch.Watch();
        stream.on('data', (r) => {
          if (r.created) resolve(() => stream.cancel());
          for (const e of r.events) seen(e.kv.key.toString());
        });
        stream.on('error', () => undefined);
        stream.write({ create_request: { key: Buffer.from(prefix), range_end: end(prefix), prev_kv: true } });
      }),
    range: async (prefix) => (await call(kv.Range, { key: Buffer.from(prefix), range_end: end(prefix) })).kvs!.length,
    close: () => {
      watch.close();
      kv.close();
    },
  };
}

interface Row {
  backend: string;
  putsPerSec: number;
  rawPutsPerSec: number;
  putRatio: number;
  watchP50Ms: number;
  watchP99Ms: number;
  rawWatchP50Ms: number;
  rawWatchP99Ms: number;
  range10kMs: number;
  rawRange10kMs: number;
  rangeRatio: number;
}

async function compare(backend: string, store: Store, raw: Subject, rangePrefixStore: string, rangePrefixRaw: string): Promise<Row> {
  const s = storeSubject(store);
  for (let i = 0; i < RANGE_KEYS; i++) {
    await s.put(`${rangePrefixStore}${String(i).padStart(6, '0')}`);
    await raw.put(`${rangePrefixRaw}${String(i).padStart(6, '0')}`);
  }
  const puts: number[] = [];
  const rawPuts: number[] = [];
  const ratios: number[] = [];
  const lat: number[] = [];
  const rawLat: number[] = [];
  const ranges: number[] = [];
  const rawRanges: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const p = await putsPerSecond(s, `s${r}`);
    const rp = await putsPerSecond(raw, `r${r}`);
    puts.push(p);
    rawPuts.push(rp);
    ratios.push(p / rp);
    lat.push(...(await watchLatencies(s, `s${r}`)));
    rawLat.push(...(await watchLatencies(raw, `r${r}`)));
    ranges.push(await rangeMs(s, rangePrefixStore));
    rawRanges.push(await rangeMs(raw, rangePrefixRaw));
  }
  const range10kMs = median(ranges);
  const rawRange10kMs = median(rawRanges);
  return {
    backend,
    putsPerSec: Math.round(median(puts)),
    rawPutsPerSec: Math.round(median(rawPuts)),
    putRatio: +median(ratios).toFixed(2),
    watchP50Ms: +pct(lat, 0.5).toFixed(3),
    watchP99Ms: +pct(lat, 0.99).toFixed(3),
    rawWatchP50Ms: +pct(rawLat, 0.5).toFixed(3),
    rawWatchP99Ms: +pct(rawLat, 0.99).toFixed(3),
    range10kMs: +range10kMs.toFixed(1),
    rawRange10kMs: +rawRange10kMs.toFixed(1),
    rangeRatio: +(rawRange10kMs / range10kMs).toFixed(2),
  };
}

const CATCH_UP_EVENTS = 3000;
const CATCH_UP_VALUE = Buffer.alloc(6 * 1024, 'p');

/** Keeps the event loop busy in 20 ms turns (I/O is polled only between them) until stopped. */
function busyLoop(): () => void {
  let on = true;
  const turn = () => {
    const end = Date.now() + 20;
    while (Date.now() < end);
    if (on) setImmediate(turn);
  };
  setImmediate(turn);
  return () => (on = false);
}

/** Events per second a watch from `after` delivers into a busy loop until it has seen `CATCH_UP_EVENTS`. */
async function catchUpRate(watch: (after: number, seen: (n: number) => void) => () => void, after: number): Promise<number> {
  const stop = busyLoop();
  const t0 = process.hrtime.bigint();
  let seen = 0;
  await new Promise<void>((resolve) => {
    const cancel = watch(after, (n) => {
      seen += n;
      if (seen >= CATCH_UP_EVENTS) {
        cancel();
        resolve();
      }
    });
  });
  stop();
  return CATCH_UP_EVENTS / (ms(t0) / 1000);
}

interface CatchUpRow {
  storeEventsPerSec: number;
  rawDefaultWindowEventsPerSec: number;
  raw16MiBWindowEventsPerSec: number;
  ratioTo16MiB: number;
}

async function catchUp(url: string, store: EtcdStore): Promise<CatchUpRow> {
  const first = (await store.put('/catch-up/start', 'x')).revision;
  for (let i = 0; i < CATCH_UP_EVENTS; i += 100) {
    await Promise.all(Array.from({ length: 100 }, (_, j) => store.put(`/catch-up/${String(i + j).padStart(6, '0')}`, CATCH_UP_VALUE)));
  }
  const pkg = etcdPackage();
  const rawWatch = (window?: number) => (after: number, seen: (n: number) => void) => {
    const opts: grpc.ChannelOptions = { 'grpc.max_receive_message_length': 64 * 1024 * 1024, ...(window ? { 'grpc-node.flow_control_window': window } : {}) };
    const client = new (pkg.Watch as grpc.ServiceClientConstructor)(new URL(url).host, grpc.credentials.createInsecure(), opts) as unknown as grpc.Client & {
      Watch(): grpc.ClientDuplexStream<object, { events: unknown[] }>;
    };
    const stream = client.Watch();
    stream.on('data', (r) => seen(r.events.length));
    stream.on('error', () => undefined);
    stream.write({ create_request: { key: Buffer.from('/registry/catch-up/'), range_end: Buffer.from('/registry/catch-up0'), start_revision: after + 1, prev_kv: true } });
    return () => {
      stream.cancel();
      client.close();
    };
  };
  const storeWatch = (after: number, seen: (n: number) => void) => {
    const w = store.watch('/catch-up/', { afterRevision: after });
    void (async () => {
      for await (const batch of w) seen(batch.events.length);
    })().catch(() => undefined);
    return () => w.close();
  };
  const rates: Record<'store' | 'def' | 'big', number[]> = { store: [], def: [], big: [] };
  for (let r = 0; r < ROUNDS; r++) {
    rates.store.push(await catchUpRate(storeWatch, first));
    rates.def.push(await catchUpRate(rawWatch(), first));
    rates.big.push(await catchUpRate(rawWatch(16 * 1024 * 1024), first));
  }
  const storeRate = median(rates.store);
  const big = median(rates.big);
  return {
    storeEventsPerSec: Math.round(storeRate),
    rawDefaultWindowEventsPerSec: Math.round(median(rates.def)),
    raw16MiBWindowEventsPerSec: Math.round(big),
    ratioTo16MiB: +(storeRate / big).toFixed(2),
  };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'cl-bench-store-'));
  const rows: Row[] = [];
  let catchUpRow: CatchUpRow | undefined;
  try {
    const sqlite = new SqliteStore(join(dir, 'store.db'));
    const raw = rawSqlite(join(dir, 'raw.db'));
    rows.push(await compare('sqlite', sqlite, raw, '/range/', '/range/'));
    await sqlite.close();
    raw.close();

    const etcd = await startEtcd();
    try {
      const store = new EtcdStore({ servers: [etcd.url], prefix: '/registry' });
      const bare = rawEtcd(etcd.url);
      rows.push(await compare('etcd', store, bare, '/range/', '/raw-range/'));
      catchUpRow = await catchUp(etcd.url, store);
      await store.close();
      bare.close();
    } finally {
      await etcd.destroy();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`store benchmark: ${PUTS} sequential 1 KiB puts, ${WATCH_SAMPLES} put-to-event samples, range of ${RANGE_KEYS} keys; median of ${ROUNDS} rounds`);
  console.log('backend  puts/s (raw, ratio)        watch p50/p99 ms (raw)          range 10k ms (raw, raw/store)');
  for (const r of rows) {
    console.log(
      `${r.backend.padEnd(8)} ${String(r.putsPerSec).padStart(6)} (${r.rawPutsPerSec}, ${r.putRatio})`.padEnd(34) +
        `${r.watchP50Ms}/${r.watchP99Ms} (${r.rawWatchP50Ms}/${r.rawWatchP99Ms})`.padEnd(32) +
        `${r.range10kMs} (${r.rawRange10kMs}, ${r.rangeRatio})`,
    );
  }
  const c = catchUpRow!;
  console.log(
    `etcd watch catch-up into a busy loop (${CATCH_UP_EVENTS} 6 KiB changes, 20 ms turns): EtcdStore ${c.storeEventsPerSec} events/s; ` +
      `bare gRPC ${c.rawDefaultWindowEventsPerSec} (64 KiB windows), ${c.raw16MiBWindowEventsPerSec} (16 MiB windows); store / 16 MiB ${c.ratioTo16MiB}`,
  );
  const sqliteRow = rows.find((r) => r.backend === 'sqlite')!;
  const targets = {
    putRatioAtLeastHalf: rows.every((r) => r.putRatio >= 0.5),
    sqliteWatchP99Under10ms: sqliteRow.watchP99Ms < 10,
  };
  console.log(`targets: puts >= 0.5 of raw on both: ${targets.putRatioAtLeastHalf}; SQLite watch p99 < 10 ms: ${targets.sqliteWatchP99Under10ms}`);
  console.log(JSON.stringify({ bench: 'store', puts: PUTS, rounds: ROUNDS, rows, catchUp: catchUpRow, targets }));
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
