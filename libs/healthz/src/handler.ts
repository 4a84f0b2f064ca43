// /healthz, /livez and /readyz with upstream's exact rules (healthz.md §3-§7): registration order is output
// order, `verbose` is the key's presence, `exclude` is a set of exact names, failures are always verbose and
// never reveal their reason, the per-check endpoints do. Routes match the decoded path exactly.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HealthCheck } from './checks';
import type { HealthResultSink } from './metrics';
import { parseGoQuery, splitTarget } from './query';
import { goQuote } from '@cl/flags';

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';
export const HEALTH_ENDPOINTS: readonly HealthEndpoint[] = ['healthz', 'livez', 'readyz'];

export interface HealthChecksOptions {
  /** Where failing checks' real reasons go. */
  log?: (line: string) => void;
  metrics?: HealthResultSink;
  now?: () => number;
}

export interface AddOptions {
  /**
   * For boot-sequence checks on /livez: the check passes until this much time after registration has
   * elapsed (`--livez-grace-period`); /healthz and /readyz never get a grace period.
   */
  livezGraceMs?: number;
}

const TEXT = 'text/plain; charset=utf-8';

/** A registered check with its SLI series resolved once, so a health request does no label lookups. */
interface Entry {
  check: HealthCheck;
  record: (healthy: boolean) => void;
}

interface RunResult {
  body: string;
  failed: string[];
}

/** One pass over an endpoint's checks: what to skip, whether the report text is wanted, where the result goes. */
interface Pass {
  endpoint: HealthEndpoint;
  excluded: ReadonlySet<string>;
  wantBody: boolean;
  done: (r: RunResult) => void;
  /** Failed checks with their errors, created on the first failure. */
  errors: Map<Entry, unknown> | null;
}

const NO_EXCLUSIONS: ReadonlySet<string> = new Set();
const NOTHING_FAILED: readonly Entry[] = [];

export class HealthChecks {
  private readonly lists: Record<HealthEndpoint, HealthCheck[]> = { healthz: [], livez: [], readyz: [] };
  private readonly entries: Record<HealthEndpoint, Entry[]> = { healthz: [], livez: [], readyz: [] };
  private readonly log: (line: string) => void;
  private readonly now: () => number;

  constructor(private readonly opts: HealthChecksOptions = {}) {
    this.log = opts.log ?? (() => undefined);
    this.now = opts.now ?? Date.now;
  }

  add(endpoints: readonly HealthEndpoint[], check: HealthCheck, opts: AddOptions = {}): this {
    for (const ep of endpoints) {
      if (this.lists[ep].some((c) => c.name === check.name)) throw new Error(`duplicate ${ep} check ${JSON.stringify(check.name)}`);
      const grace = ep === 'livez' ? (opts.livezGraceMs ?? 0) : 0;
      const registered = grace > 0 ? this.delayed(check, grace) : check;
      this.lists[ep].push(registered);
      this.entries[ep].push({ check: registered, record: this.recorder(check.name, ep) });
    }
    return this;
  }

  /** Names of the checks on one endpoint, in order. */
  names(endpoint: HealthEndpoint): string[] {
    return this.lists[endpoint].map((c) => c.name);
  }

  /**
   * Answers the request when it is a health route; returns false (and writes nothing) otherwise. Synchronous
   * while every check answers synchronously.
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> {
    const target = splitTarget(req.url ?? '/');
    if (!target) return false;
    const route = this.route(target.path);
    if (!route) return false;
    if (route.check) return this.serveOne(route.endpoint, route.check, res).then(() => true);
    const query = target.rawQuery === '' ? null : parseGoQuery(target.rawQuery);
    const excluded = query?.get('exclude');
    const verbose = query?.has('verbose') ?? false;
    const done = this.run({
      endpoint: route.endpoint,
      excluded: excluded ? new Set(excluded) : NO_EXCLUSIONS,
      wantBody: verbose,
      done: (r) => this.answer(route.endpoint, verbose, r, res),
      errors: null,
    });
    return done === undefined ? true : done.then(() => true);
  }

  /** Runs one endpoint's checks as its handler does; for callers that need the verdict without HTTP. */
  async evaluate(endpoint: HealthEndpoint, excluded: Iterable<string> = []): Promise<{ ok: boolean; body: string }> {
    let out!: RunResult;
    await this.run({ endpoint, excluded: new Set(excluded), wantBody: true, done: (r) => (out = r), errors: null });
    return { ok: out.failed.length === 0, body: out.body };
  }

  private recorder(name: string, endpoint: HealthEndpoint): (healthy: boolean) => void {
    const sink = this.opts.metrics;
    if (!sink) return () => undefined;
    const resolved = sink.series?.(name, endpoint);
    return resolved ?? ((healthy) => sink.observe(name, endpoint, healthy));
  }

  private route(path: string): { endpoint: HealthEndpoint; check?: HealthCheck } | null {
    const m = /^\/(healthz|livez|readyz)(?:\/(.+))?$/.exec(path);
    if (!m) return null;
    const endpoint = m[1] as HealthEndpoint;
    if (m[2] === undefined) return path === `/${endpoint}` ? { endpoint } : null;
    const check = this.lists[endpoint].find((c) => c.name === m[2]);
    return check ? { endpoint, check } : null;
  }

  private delayed(check: HealthCheck, graceMs: number): HealthCheck {
    const until = this.now() + graceMs;
    return {
      name: check.name,
      check: () => {
        if (!(this.now() > until)) return; // the boundary instant still counts as grace
        return check.check();
      },
    };
  }

  /**
   * Runs the checks in order from `from` and hands the result to `p.done`: synchronously (returning undefined)
   * while the checks answer synchronously; a pending check is awaited and the pass continues after it (returning
   * the promise). The report text is only built when it will be shown (verbose, or a failure).
   */
  private run(p: Pass, from = 0): Promise<void> | undefined {
    const list = this.entries[p.endpoint];
    for (let i = from; i < list.length; i++) {
      const e = list[i];
      if (p.excluded.size > 0 && p.excluded.has(e.check.name)) continue;
      let pending: Promise<void> | void;
      try {
        pending = e.check.check();
      } catch (err) {
        failedCheck(p, e, err);
        continue;
      }
      if (pending) return this.resume(p, i, pending);
      e.record(true);
    }
    p.done(this.report(p));
    return undefined;
  }

  private async resume(p: Pass, i: number, pending: Promise<void>): Promise<void> {
    const e = this.entries[p.endpoint][i];
    try {
      await pending;
      e.record(true);
    } catch (err) {
      failedCheck(p, e, err);
    }
    return this.run(p, i + 1);
  }

  /** The verbose report in registration order, the warning for unknown exclusions, and the log line for failures. */
  private report({ endpoint, excluded, wantBody, errors }: Pass): RunResult {
    const failedEntries = errors === null ? NOTHING_FAILED : [...errors.keys()];
    if (!wantBody && failedEntries.length === 0) return { body: '', failed: [] };
    let body = '';
    const unmatched = new Set(excluded);
    for (const e of this.entries[endpoint]) {
      const name = e.check.name;
      if (unmatched.has(name)) {
        unmatched.delete(name);
        body += `[+]${name} excluded: ok\n`;
      } else if (errors?.has(e)) body += `[-]${name} failed: reason withheld\n`;
      else body += `[+]${name} ok\n`;
    }
    if (unmatched.size > 0) {
      const names = [...unmatched].sort(byteOrder).map(goQuote).join(',');
      body += `warn: some health checks cannot be excluded: no matches for ${names}\n`;
    }
    const failed = failedEntries.map((e) => e.check.name);
    if (failed.length > 0) {
      const detail = failedEntries.map((e) => `[-]${e.check.name} failed: ${errorText(errors?.get(e))}\n`).join('');
      this.log(`${failed.join(',')} check failed: ${endpoint}\n${detail}`);
    }
    return { body, failed };
  }

  private answer(endpoint: HealthEndpoint, verbose: boolean, r: RunResult, res: ServerResponse): void {
    if (r.failed.length > 0) send(res, 500, `${r.body}${endpoint} check failed\n`, true);
    else send(res, 200, verbose ? `${r.body}${endpoint} check passed\n` : 'ok', true);
  }

  private async serveOne(_endpoint: HealthEndpoint, check: HealthCheck, res: ServerResponse) {
    try {
      const pending = check.check();
      if (pending) await pending;
      send(res, 200, 'ok', false);
    } catch (e) {
      send(res, 500, `internal server error: ${errorText(e)}\n`, true);
    }
  }
}

function failedCheck(p: Pass, e: Entry, err: unknown): void {
  e.record(false);
  (p.errors ??= new Map()).set(e, err);
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function byteOrder(a: string, b: string): number {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return Buffer.compare(x, y);
}

/** Writes a text response; `nosniff` as Go's http.Error and the aggregate handler set it. */
export function send(res: ServerResponse, status: number, body: string, nosniff: boolean): void {
  res.statusCode = status;
  res.setHeader('Content-Type', TEXT);
  if (nosniff) res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** Go's http.NotFound. */
export function notFound(res: ServerResponse): void {
  send(res, 404, '404 page not found\n', true);
}
