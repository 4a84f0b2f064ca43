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

export class HealthChecks {
  private readonly lists: Record<HealthEndpoint, HealthCheck[]> = { healthz: [], livez: [], readyz: [] };
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
      this.lists[ep].push(grace > 0 ? this.delayed(check, grace) : check);
    }
    return this;
  }

  /** Names of the checks on one endpoint, in order. */
  names(endpoint: HealthEndpoint): string[] {
    return this.lists[endpoint].map((c) => c.name);
  }

  /** True when `path` is one of the health routes (the aggregate or a registered per-check path). */
  isHealthPath(path: string): boolean {
    return this.route(path) !== null;
  }

  /** Answers the request when it is a health route; returns false (and writes nothing) otherwise. */
  handle(req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> {
    const target = splitTarget(req.url ?? '/');
    if (!target) return false;
    const route = this.route(target.path);
    if (!route) return false;
    const done = route.check
      ? this.serveOne(route.endpoint, route.check, res)
      : this.serveAggregate(route.endpoint, parseGoQuery(target.rawQuery), res);
    return done.then(() => true);
  }

  /** Runs one endpoint's checks as its handler does; for callers that need the verdict without HTTP. */
  async evaluate(endpoint: HealthEndpoint, excluded: Iterable<string> = []): Promise<{ ok: boolean; body: string }> {
    const r = await this.run(endpoint, new Set(excluded));
    return { ok: r.failed.length === 0, body: r.body };
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

  private async run(endpoint: HealthEndpoint, excluded: Set<string>) {
    let body = '';
    let logDetail = '';
    const failed: string[] = [];
    for (const c of this.lists[endpoint]) {
      if (excluded.has(c.name)) {
        excluded.delete(c.name);
        body += `[+]${c.name} excluded: ok\n`;
        continue;
      }
      try {
        const pending = c.check();
        if (pending) await pending;
        this.opts.metrics?.observe(c.name, endpoint, true);
        body += `[+]${c.name} ok\n`;
      } catch (e) {
        this.opts.metrics?.observe(c.name, endpoint, false);
        body += `[-]${c.name} failed: reason withheld\n`;
        logDetail += `[-]${c.name} failed: ${errorText(e)}\n`;
        failed.push(c.name);
      }
    }
    if (excluded.size > 0) {
      const names = [...excluded].sort(byteOrder).map(goQuote).join(',');
      body += `warn: some health checks cannot be excluded: no matches for ${names}\n`;
    }
    if (failed.length > 0) this.log(`${failed.join(',')} check failed: ${endpoint}\n${logDetail}`);
    return { body, failed };
  }

  private async serveAggregate(endpoint: HealthEndpoint, query: Map<string, string[]>, res: ServerResponse) {
    const { body, failed } = await this.run(endpoint, new Set(query.get('exclude') ?? []));
    if (failed.length > 0) {
      send(res, 500, `${body}${endpoint} check failed\n`, true);
      return;
    }
    send(res, 200, query.has('verbose') ? `${body}${endpoint} check passed\n` : 'ok', true);
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
