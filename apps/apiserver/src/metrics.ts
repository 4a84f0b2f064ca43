// Request metrics with upstream's names and labels (apiserver_request_total, apiserver_request_duration_seconds),
// on prom-client's default registry so the libraries' own metrics (authentication, authorization) appear on the
// same /metrics page. The health-check SLIs have their own registry, served at /metrics/slis.
//
// The two request metrics are kept in one map keyed by the label values and rendered at scrape time: the
// per-request cost is one string key, one map lookup and a bucket search, instead of prom-client's label
// hashing for each of the two metrics on every request (measured by bench/healthz).
import { Registry, collectDefaultMetrics, register, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { RequestInfo } from '@cl/auth';
import { healthSliMetrics, type HealthResultSink } from '@cl/healthz';

const BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

export interface RequestLabels {
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
}

interface Series {
  labels: Record<string, string>;
  codes: Map<string, number>;
  buckets: number[];
  count: number;
  sum: number;
}

class RequestSeries {
  private readonly series = new Map<string, Series>();

  observe(l: RequestLabels, code: number, seconds: number): void {
    const key = `${l.verb}\u0000${l.group}\u0000${l.version}\u0000${l.resource}\u0000${l.subresource}\u0000${l.scope}`;
    let s = this.series.get(key);
    if (!s) {
      s = {
        labels: { component: 'apiserver', dry_run: '', group: l.group, resource: l.resource, scope: l.scope, subresource: l.subresource, verb: l.verb, version: l.version },
        codes: new Map(),
        buckets: new Array(BUCKETS.length).fill(0),
        count: 0,
        sum: 0,
      };
      this.series.set(key, s);
    }
    const c = String(code);
    s.codes.set(c, (s.codes.get(c) ?? 0) + 1);
    s.count++;
    s.sum += seconds;
    for (let i = 0; i < BUCKETS.length; i++) {
      if (seconds <= BUCKETS[i]) {
        s.buckets[i]++;
        break;
      }
    }
  }

  totals(): MetricValue<string>[] {
    const out: MetricValue<string>[] = [];
    for (const s of this.series.values()) for (const [code, n] of s.codes) out.push({ labels: { code, ...s.labels }, value: n });
    return out;
  }

  histogram(): Array<MetricValue<string> & { metricName: string }> {
    const out: Array<MetricValue<string> & { metricName: string }> = [];
    const name = 'apiserver_request_duration_seconds';
    for (const s of this.series.values()) {
      let cumulative = 0;
      BUCKETS.forEach((le, i) => {
        cumulative += s.buckets[i];
        out.push({ metricName: `${name}_bucket`, labels: { le: String(le), ...s.labels }, value: cumulative });
      });
      out.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', ...s.labels }, value: s.count });
      out.push({ metricName: `${name}_sum`, labels: s.labels, value: s.sum });
      out.push({ metricName: `${name}_count`, labels: s.labels, value: s.count });
    }
    return out;
  }
}

/** A prom-client-compatible metric whose values are computed when scraped. */
function scrapedMetric(name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValue<string>[]) {
  return {
    name,
    help,
    type,
    aggregator: 'sum' as const,
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }) as unknown as MetricObjectWithValues<MetricValue<string>>,
    reset: () => undefined,
  };
}

export interface RequestMetrics {
  observe(info: RequestLabels, code: number, seconds: number): void;
  sliRegistry: Registry;
  health: HealthResultSink;
}

let shared: RequestMetrics | undefined;

export function requestMetrics(): RequestMetrics {
  if (shared) return shared;
  if (!register.getSingleMetric('process_cpu_seconds_total')) collectDefaultMetrics();
  const series = new RequestSeries();
  register.registerMetric(
    scrapedMetric(
      'apiserver_request_total',
      '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      'counter',
      () => series.totals(),
    ) as never,
  );
  register.registerMetric(
    scrapedMetric(
      'apiserver_request_duration_seconds',
      '[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      'histogram',
      () => series.histogram(),
    ) as never,
  );
  const sliRegistry = new Registry();
  shared = { sliRegistry, health: healthSliMetrics(sliRegistry), observe: (l, code, s) => series.observe(l, code, s) };
  return shared;
}

/**
 * Upstream's reported verb (LIST/WATCH for resource requests, the method for others) and the label set.
 * Non-resource paths are reported by class (`/livez`, `/readyz/<check>` for registered checks, `other` for
 * unknown paths) so that arbitrary request paths cannot grow the metric without bound.
 */
export function requestLabels(method: string, info: RequestInfo, pathClass: string): RequestLabels {
  if (!info.isResourceRequest) {
    return { verb: method.toUpperCase(), group: '', version: '', resource: '', subresource: pathClass, scope: '' };
  }
  const verbs: Record<string, string> = { list: 'LIST', watch: 'WATCH', get: 'GET', create: 'POST', update: 'PUT', patch: 'PATCH', delete: 'DELETE', deletecollection: 'DELETE' };
  const scope = info.name ? 'resource' : info.namespace ? 'namespace' : 'cluster';
  return { verb: verbs[info.verb] ?? method.toUpperCase(), group: info.apiGroup, version: info.apiVersion, resource: info.resource, subresource: info.subresource, scope };
}

export { register as metricsRegistry };
