// Request metrics with upstream's names and labels (apiserver_request_total, apiserver_request_duration_seconds),
// on prom-client's default registry so the libraries' own metrics (authentication, authorization) appear on
// the same /metrics page. The health-check SLIs have their own registry, served at /metrics/slis.
import { Counter, Histogram, Registry, collectDefaultMetrics, register } from 'prom-client';
import type { RequestInfo } from '@cl/auth';
import { healthSliMetrics, type HealthResultSink } from '@cl/healthz';

const LABELS = ['code', 'component', 'dry_run', 'group', 'resource', 'scope', 'subresource', 'verb', 'version'] as const;

function single<T>(name: string, make: () => T): T {
  return (register.getSingleMetric(name) as T | undefined) ?? make();
}

export interface RequestMetrics {
  observe(info: RequestLabels, code: number, seconds: number): void;
  sliRegistry: Registry;
  health: HealthResultSink;
}

export interface RequestLabels {
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
}

let shared: RequestMetrics | undefined;

export function requestMetrics(): RequestMetrics {
  if (shared) return shared;
  if (!register.getSingleMetric('process_cpu_seconds_total')) collectDefaultMetrics();
  const total = single(
    'apiserver_request_total',
    () =>
      new Counter({
        name: 'apiserver_request_total',
        help: '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
        labelNames: LABELS,
      }),
  );
  const duration = single(
    'apiserver_request_duration_seconds',
    () =>
      new Histogram({
        name: 'apiserver_request_duration_seconds',
        help: '[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
        labelNames: LABELS.filter((l) => l !== 'code'),
        buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
      }),
  );
  const sliRegistry = new Registry();
  shared = {
    sliRegistry,
    health: healthSliMetrics(sliRegistry),
    observe(l, code, seconds) {
      const labels = { component: 'apiserver', dry_run: '', group: l.group, resource: l.resource, scope: l.scope, subresource: l.subresource, verb: l.verb, version: l.version };
      total.inc({ code: String(code), ...labels });
      duration.observe(labels, seconds);
    },
  };
  return shared;
}

/**
 * Upstream's reported verb (LIST/WATCH/APPLY for resource requests, the method for others) and the label set.
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
