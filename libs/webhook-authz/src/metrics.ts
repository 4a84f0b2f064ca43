// Authorization metrics with upstream's names, labels, buckets and HELP text (component-base ALPHA metrics),
// on prom-client's default registry so the API server's /metrics shows them next to its own.
import { counter, exponentialBuckets, fastCounter, fastHistogram, gauge, histogram } from '@cl/auth';

export type WebhookResult = 'success' | 'error' | 'timeout' | 'canceled';

export const authorizationMetrics = {
  // Recorded on every request: resolve-once children instead of prom-client's per-call label hashing.
  decisions: () =>
    fastCounter({
      name: 'apiserver_authorization_decisions_total',
      help: '[ALPHA] Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.',
      labelNames: ['type', 'name', 'decision'] as const,
    }),
  webhookEvaluations: () =>
    counter({
      name: 'apiserver_authorization_webhook_evaluations_total',
      help: '[ALPHA] Round-trips to authorization webhooks.',
      labelNames: ['name', 'result'] as const,
    }),
  webhookDuration: () =>
    histogram({
      name: 'apiserver_authorization_webhook_duration_seconds',
      help: '[ALPHA] Request latency in seconds.',
      labelNames: ['name', 'result'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0],
    }),
  webhookFailOpen: () =>
    counter({
      name: 'apiserver_authorization_webhook_evaluations_fail_open_total',
      help: '[ALPHA] NoOpinion results due to webhook timeout or error.',
      labelNames: ['name', 'result'] as const,
    }),
  matchConditionErrors: () =>
    counter({
      name: 'apiserver_authorization_match_condition_evaluation_errors_total',
      help: '[ALPHA] Total number of errors when an authorization webhook encounters a match condition error split by authorizer type and name.',
      labelNames: ['type', 'name'] as const,
    }),
  matchConditionExclusions: () =>
    counter({
      name: 'apiserver_authorization_match_condition_exclusions_total',
      help: '[ALPHA] Total number of exclusions when an authorization webhook is skipped because match conditions exclude it.',
      labelNames: ['type', 'name'] as const,
    }),
  matchConditionSeconds: () =>
    histogram({
      name: 'apiserver_authorization_match_condition_evaluation_seconds',
      help: '[ALPHA] Authorization match condition evaluation time in seconds, split by authorizer type and name.',
      labelNames: ['type', 'name'] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25],
    }),
  /** The request filter's outcome metrics (no `apiserver_` prefix upstream). */
  attempts: () =>
    fastCounter({
      name: 'authorization_attempts_total',
      help: '[ALPHA] Counter of authorization attempts broken down by result. It can be either \'allowed\', \'denied\', \'no-opinion\' or \'error\'.',
      labelNames: ['result'] as const,
    }),
  duration: () =>
    fastHistogram({
      name: 'authorization_duration_seconds',
      help: '[ALPHA] Authorization duration in seconds broken out by result.',
      labelNames: ['result'] as const,
      buckets: exponentialBuckets(0.001, 2, 15),
    }),
  reloads: () =>
    counter({
      name: 'apiserver_authorization_config_controller_automatic_reloads_total',
      help: '[ALPHA] Total number of automatic reloads of authorization configuration split by status and apiserver identity.',
      labelNames: ['status', 'apiserver_id_hash'] as const,
    }),
  reloadTimestamp: () =>
    gauge({
      name: 'apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds',
      help: '[ALPHA] Timestamp of the last automatic reload of authorization configuration split by status and apiserver identity.',
      labelNames: ['status', 'apiserver_id_hash'] as const,
    }),
};

/** A monotonic clock in seconds for durations. */
export function nowSeconds(): number {
  return Number(process.hrtime.bigint()) / 1e9;
}
