// An in-memory API server behind the node library's ApiClient, for the library's unit tests: objects kept by
// path with a uid and a resourceVersion, the answers the library reacts to (404, 409 AlreadyExists, 409 Conflict
// on a stale resourceVersion or a failed uid precondition, 422 for a status patch naming another uid), strategic
// merge for the patches the node writes, failures and pauses on demand, and a record of every call so tests
// assert the traffic a real API server would see.
import { applyStrategicMergePatch, type ListPatchStrategy } from '@cl/apimachinery';
import type { ApiClient, NodeLog } from '../src/types';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Call {
  method: Method;
  path: string;
  /** The request body (POST, PUT, PATCH) or delete options (DELETE), copied when the call was made. */
  body?: unknown;
  /** The HTTP status it was answered with; undefined while in flight. */
  code?: number;
}

/** An error as @cl/kube-client's ApiError carries it: the HTTP status as `code` (0 for a network failure). */
export class FakeApiError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

interface Stored {
  metadata: { name?: string; uid?: string; resourceVersion?: string; creationTimestamp?: string; [key: string]: unknown };
  [key: string]: unknown;
}

type Match = (call: Call) => boolean;

const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

// The merge keys of the lists the node writes (core/v1's patchMergeKey tags); every other list is replaced.
const MERGE_KEYS: Record<string, string> = {
  'status.conditions': 'type',
  'status.addresses': 'type',
  'metadata.ownerReferences': 'uid',
};
const strategyAt = (path: readonly string[]): ListPatchStrategy => {
  const key = MERGE_KEYS[path.join('.')];
  return key ? { type: 'merge', key } : { type: 'replace' };
};

export class FakeApi implements ApiClient {
  readonly calls: Call[] = [];
  private readonly objects = new Map<string, Stored>();
  private revision = 0;
  private uids = 0;
  private readonly failures: Array<{ match: Match; code: number }> = [];
  private readonly pauses: Array<{ match: Match; released: Promise<void> }> = [];
  private readonly inFlight = new Map<string, number>();
  private readonly peak = new Map<string, number>();

  // ---- what a test arranges ----

  /** Stores an object at its path as someone else wrote it: a uid when it has none, a new resourceVersion. */
  put<T>(path: string, object: T): T {
    const o = clone(object) as unknown as Stored;
    o.metadata = { ...o.metadata, uid: o.metadata?.uid ?? this.newUid(), resourceVersion: this.nextRevision() };
    this.objects.set(path, o);
    return clone(o) as unknown as T;
  }

  /** A copy of the object at `path`, or undefined. */
  object<T = Stored>(path: string): T | undefined {
    return clone(this.objects.get(path)) as T | undefined;
  }

  remove(path: string): void {
    this.objects.delete(path);
  }

  /** The next `times` calls that `match` (every call by default) fail with `code`: 0 is a network failure. */
  failNext(times: number, code: number, match: Match = () => true): void {
    for (let i = 0; i < times; i++) this.failures.push({ match, code });
  }

  /** The next call that `match`es waits, in flight, until the returned function is called. */
  pauseNext(match: Match): () => void {
    let release!: () => void;
    this.pauses.push({ match, released: new Promise<void>((r) => (release = r)) });
    return release;
  }

  /** Calls on `path` in flight now, and the most there ever were at once. */
  inFlightOn(path: string): number {
    return this.inFlight.get(path) ?? 0;
  }

  mostInFlightOn(path: string): number {
    return this.peak.get(path) ?? 0;
  }

  /** The recorded calls of one method, optionally on one path. */
  callsOf(method: Method, path?: string): Call[] {
    return this.calls.filter((c) => c.method === method && (path === undefined || c.path === path));
  }

  /** The traffic so far, one line a call, for failure messages. */
  describe(): string {
    return this.calls.map((c) => `${c.method} ${c.path} -> ${c.code ?? 'in flight'} ${c.body === undefined ? '' : JSON.stringify(c.body)}`).join('\n');
  }

  // ---- ApiClient ----

  get<T>(path: string): Promise<T> {
    return this.answer<T>({ method: 'GET', path }, () => {
      return [200, this.existing(path)];
    });
  }

  create<T>(path: string, body: unknown): Promise<T> {
    return this.answer<T>({ method: 'POST', path, body: clone(body) }, () => {
      const o = clone(body) as Stored;
      const at = `${path}/${o.metadata.name}`;
      if (this.objects.has(at)) throw new FakeApiError(409, `${at} already exists`);
      o.metadata = { ...o.metadata, uid: this.newUid(), resourceVersion: this.nextRevision(), creationTimestamp: '2025-01-01T00:00:00Z' };
      this.objects.set(at, o);
      return [201, o];
    });
  }

  update<T>(path: string, body: unknown): Promise<T> {
    return this.answer<T>({ method: 'PUT', path, body: clone(body) }, () => {
      const current = this.existing(path);
      const o = clone(body) as Stored;
      const rv = o.metadata?.resourceVersion;
      if (rv !== undefined && rv !== current.metadata.resourceVersion) throw new FakeApiError(409, `${path}: the object has been modified`);
      o.metadata = { ...o.metadata, uid: current.metadata.uid, creationTimestamp: current.metadata.creationTimestamp, resourceVersion: this.nextRevision() };
      this.objects.set(path, o);
      return [200, o];
    });
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.answer<T>({ method: 'PATCH', path, body: clone(body) }, () => {
      const at = path.replace(/\/status$/, '');
      const current = this.existing(at);
      const uid = (body as { metadata?: { uid?: string } }).metadata?.uid;
      if (uid !== undefined && uid !== current.metadata.uid) throw new FakeApiError(422, `${at}: metadata.uid: Invalid value: "${uid}": field is immutable`);
      const o = applyStrategicMergePatch(current, body, strategyAt) as Stored;
      o.metadata = { ...o.metadata, resourceVersion: this.nextRevision() };
      this.objects.set(at, o);
      return [200, o];
    });
  }

  delete<T>(path: string, options?: Record<string, unknown>): Promise<T> {
    return this.answer<T>({ method: 'DELETE', path, body: clone(options) }, () => {
      const current = this.existing(path);
      const uid = (options?.preconditions as { uid?: string } | undefined)?.uid;
      if (uid !== undefined && uid !== current.metadata.uid) throw new FakeApiError(409, `${path}: Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid}`);
      this.objects.delete(path);
      return [200, current];
    });
  }

  // ---- the machinery ----

  private existing(path: string): Stored {
    const o = this.objects.get(path);
    if (!o) throw new FakeApiError(404, `${path} not found`);
    return o;
  }

  private async answer<T>(call: Call, serve: () => [number, Stored]): Promise<T> {
    this.calls.push(call);
    const n = this.inFlightOn(call.path) + 1;
    this.inFlight.set(call.path, n);
    this.peak.set(call.path, Math.max(n, this.mostInFlightOn(call.path)));
    try {
      // Answers come on a later turn, as a network's do, so callers interleave as they would for real.
      await new Promise((r) => setImmediate(r));
      const pause = this.take(this.pauses, call);
      if (pause) await pause.released;
      const failure = this.take(this.failures, call);
      if (failure) throw new FakeApiError(failure.code, failure.code === 0 ? 'connect ECONNREFUSED 127.0.0.1:6443' : `the server responded with the status code ${failure.code}`);
      const [code, object] = serve();
      call.code = code;
      return clone(object) as unknown as T;
    } catch (e) {
      call.code = (e as FakeApiError).code ?? 0;
      throw e;
    } finally {
      this.inFlight.set(call.path, this.inFlightOn(call.path) - 1);
    }
  }

  private take<E extends { match: Match }>(list: E[], call: Call): E | undefined {
    const i = list.findIndex((e) => e.match(call));
    return i < 0 ? undefined : list.splice(i, 1)[0];
  }

  private nextRevision(): string {
    return String(++this.revision);
  }

  private newUid(): string {
    return `uid-${++this.uids}`;
  }
}

/**
 * Waits until `probe` holds, checking after each turn of the event loop. The cap on tries only turns a hang into
 * a message naming what never happened (with the traffic so far); it is not a speed check.
 */
export async function waitUntil(probe: () => boolean, what: string, api?: FakeApi): Promise<void> {
  for (let i = 0; i < 20_000; i++) {
    if (probe()) return;
    await new Promise((r) => setTimeout(r, i < 100 ? 0 : 5));
  }
  throw new Error(`never saw ${what}${api ? `; calls so far:\n${api.describe()}` : ''}`);
}

/** A NodeLog that keeps its lines, for asserting what the library said. */
export function recordingLog(): NodeLog & { lines: Array<{ msg: string; fields?: Record<string, unknown>; severity?: string }> } {
  const lines: Array<{ msg: string; fields?: Record<string, unknown>; severity?: string }> = [];
  const log = ((msg: string, fields?: Record<string, unknown>, severity?: 'I' | 'W' | 'E') => {
    lines.push({ msg, fields, severity });
  }) as NodeLog & { lines: typeof lines };
  log.lines = lines;
  return log;
}
