// How many requests the server works on at once (upstream's WithMaxInFlightLimit, server/filters/maxinflight.go):
// --max-requests-inflight read-only requests and --max-mutating-requests-inflight others; long-running ones
// (watches, proxy, exec, attach, port-forward, logs) are not counted. A request over the limit gets upstream's
// plain-text 429 with Retry-After: 1, which client-go (and @cl/kube-client) retry. Members of system:masters are
// never turned away: a super-admin or the server's own loopback client always gets an answer.
//
// With --enable-priority-and-fairness (upstream's default) upstream queues requests by flow schema and priority
// level instead. This server has no flow schemas: it keeps one pool of both limits together (APF's server
// concurrency limit is their sum), exempts what upstream's `exempt` and `probes` flow schemas exempt
// (system:masters, and the health checks) and answers 429 at once when the pool is full, without queuing.
import { Gauge, type Registry } from 'prom-client';
import type { RequestInfo, UserInfo } from '@cl/auth';

export interface InFlightOptions {
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  enablePriorityAndFairness: boolean;
}

export type RequestKind = 'readOnly' | 'mutating';

const NON_MUTATING_VERBS = new Set(['get', 'list', 'watch']);
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);
const HEALTH_PATHS = /^\/(healthz|livez|readyz)(\/|$)/;
const SYSTEM_MASTERS = 'system:masters';

/** upstream's BasicLongRunningRequestCheck with the API server's verbs and subresources. */
export function isLongRunning(info: RequestInfo): boolean {
  return LONG_RUNNING_VERBS.has(info.verb) || (info.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(info.subresource));
}

export const requestKind = (info: RequestInfo): RequestKind => (NON_MUTATING_VERBS.has(info.verb) ? 'readOnly' : 'mutating');

/** Upstream's answer, word for word (http.Error: plain text and a newline). */
export const TOO_MANY_REQUESTS_TEXT = 'Too many requests, please try again later.\n';

export class InFlightLimiter {
  private readonly current = { readOnly: 0, mutating: 0 };
  private readonly gauge = new Gauge({ name: 'apiserver_current_inflight_requests', help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.', labelNames: ['request_kind'], registers: [] });

  constructor(private readonly o: InFlightOptions) {}

  register(registry: Registry): void {
    registry.registerMetric(this.gauge);
    this.gauge.set({ request_kind: 'readOnly' }, 0);
    this.gauge.set({ request_kind: 'mutating' }, 0);
  }

  /**
   * A seat for the request, released by calling what it returns; 'exempt' when it is not counted; null when the
   * server is full and the request must be answered 429.
   */
  admit(info: RequestInfo, user: UserInfo): (() => void) | 'exempt' | null {
    if (isLongRunning(info)) return 'exempt';
    const kind = requestKind(info);
    const limit = this.limitFor(kind);
    if (this.o.enablePriorityAndFairness && !info.isResourceRequest && HEALTH_PATHS.test(info.path)) return 'exempt';
    if (limit <= 0) return 'exempt';
    if (this.used(kind) >= limit) {
      return user.groups.includes(SYSTEM_MASTERS) ? 'exempt' : null;
    }
    this.current[kind]++;
    this.gauge.set({ request_kind: kind }, this.current[kind]);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.current[kind]--;
      this.gauge.set({ request_kind: kind }, this.current[kind]);
    };
  }

  /** Requests being worked on now, by kind. */
  inFlight(): { readOnly: number; mutating: number } {
    return { ...this.current };
  }

  private limitFor(kind: RequestKind): number {
    const { maxRequestsInflight: ro, maxMutatingRequestsInflight: mu } = this.o;
    if (this.o.enablePriorityAndFairness) return ro > 0 && mu > 0 ? ro + mu : 0;
    return kind === 'readOnly' ? ro : mu;
  }

  private used(kind: RequestKind): number {
    return this.o.enablePriorityAndFairness ? this.current.readOnly + this.current.mutating : this.current[kind];
  }
}
