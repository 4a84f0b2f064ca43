import { requestInfo } from '@cl/auth';
import { httpsServerTimeouts, requestDeadline, TIMEOUT_BODY, type Deadline } from './request-timeout';

const MAX = 60_000;

// [method, target, deadline with --request-timeout=60s]
const cases: Array<[string, string, Deadline]> = [
  ['GET', '/api/v1/namespaces/ns/configmaps', { kind: 'after', ms: MAX }],
  ['POST', '/api/v1/namespaces/ns/configmaps', { kind: 'after', ms: MAX }],
  ['GET', '/livez', { kind: 'after', ms: MAX }],
  // A client may ask for less, never for more; 0 and negative durations mean the server's.
  ['GET', '/api/v1/namespaces/ns/configmaps?timeout=1s', { kind: 'after', ms: 1000 }],
  ['GET', '/api/v1/namespaces/ns/configmaps?limit=5&timeout=1m30s', { kind: 'after', ms: MAX }],
  ['GET', '/api/v1/namespaces/ns/configmaps?timeout=250ms&timeout=5s', { kind: 'after', ms: 250 }],
  ['GET', '/api/v1/namespaces/ns/configmaps?timeout=0', { kind: 'after', ms: MAX }],
  ['GET', '/api/v1/namespaces/ns/configmaps?timeout=-5s', { kind: 'after', ms: MAX }],
  ['GET', '/api/v1/namespaces/ns/configmaps?timeout=', { kind: 'after', ms: MAX }],
  // timeoutSeconds is a watch's parameter, not this one.
  ['GET', '/api/v1/namespaces/ns/configmaps?timeoutSeconds=5', { kind: 'after', ms: MAX }],
  // Go's time.ParseDuration errors, behind upstream's words.
  ['GET', '/api/v1/namespaces/ns/configmaps?timeout=abc', { kind: 'invalid', message: 'invalid timeout specified in the request URL - time: invalid duration "abc"' }],
  ['GET', '/api/v1/namespaces/ns/configmaps?timeout=5', { kind: 'invalid', message: 'invalid timeout specified in the request URL - time: missing unit in duration "5"' }],
  ['GET', '/api/v1/namespaces/ns/configmaps?timeout=5d', { kind: 'invalid', message: 'invalid timeout specified in the request URL - time: unknown unit "d" in duration "5d"' }],
  // Long-running requests have no deadline and never read the parameter.
  ['GET', '/api/v1/namespaces/ns/configmaps?watch=true', { kind: 'none' }],
  ['GET', '/api/v1/namespaces/ns/configmaps?watch=true&timeout=abc', { kind: 'none' }],
  ['GET', '/api/v1/watch/namespaces/ns/configmaps', { kind: 'none' }],
  ['GET', '/api/v1/namespaces/ns/pods/p/log?follow=true', { kind: 'none' }],
  ['POST', '/api/v1/namespaces/ns/pods/p/exec?command=sh', { kind: 'none' }],
  ['POST', '/api/v1/namespaces/ns/pods/p/attach', { kind: 'none' }],
  ['POST', '/api/v1/namespaces/ns/pods/p/portforward', { kind: 'none' }],
  ['GET', '/api/v1/nodes/n/proxy/metrics', { kind: 'none' }],
  ['GET', '/api/v1/namespaces/ns/pods/p/proxy/', { kind: 'none' }],
];

test.each(cases)('%s %s', (method, target, deadline) => {
  expect(requestDeadline(requestInfo(method, target), target, MAX)).toEqual(deadline);
});

test('the 504 body is upstream Timeout Status, a JSON line', () => {
  expect(TIMEOUT_BODY).toBe('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}\n');
});

// [read header timeout, idle timeout, Node's server options]
test.each([
  [32_000, 90_000, { handshakeTimeout: 32_000, headersTimeout: 32_000, requestTimeout: 0, connectionsCheckingInterval: 1000, keepAliveTimeout: 90_000 }],
  [1000, 2000, { handshakeTimeout: 1000, headersTimeout: 1000, requestTimeout: 0, connectionsCheckingInterval: 250, keepAliveTimeout: 2000 }],
  [100, 100, { handshakeTimeout: 100, headersTimeout: 100, requestTimeout: 0, connectionsCheckingInterval: 50, keepAliveTimeout: 100 }],
])('read header %pms, idle %pms', (readHeaderMs, idleMs, options) => {
  expect(httpsServerTimeouts({ readHeaderMs, idleMs })).toEqual(options);
});
