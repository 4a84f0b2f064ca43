// Upstream metric names: the per-authenticator latency (cache misses only) and the config reload results.
import { createHash } from 'node:crypto';
import { counter, fastHistogram, gauge } from '@cl/auth';

export function sha256Label(s: string): string {
  return s === '' ? '' : `sha256:${createHash('sha256').update(s).digest('hex')}`;
}

export const jwtLatency = () =>
  fastHistogram({
    name: 'apiserver_authentication_jwt_authenticator_latency_seconds',
    help: 'Latency of jwt authentication operations in seconds. This is the time spent authenticating a token for cache miss only (i.e. when the token is not found in the cache).',
    labelNames: ['result', 'jwt_issuer_hash'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });

export const reloadsTotal = () =>
  counter({
    name: 'apiserver_authentication_config_controller_automatic_reloads_total',
    help: 'Total number of automatic reloads of authentication configuration split by status and apiserver identity.',
    labelNames: ['status', 'apiserver_id_hash'] as const,
  });

export const reloadLastTimestamp = () =>
  gauge({
    name: 'apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds',
    help: 'Timestamp of the last automatic reload of authentication configuration split by status and apiserver identity.',
    labelNames: ['status', 'apiserver_id_hash'] as const,
  });
