import { collectorTarget } from './endpoint';
import { serverSpanName } from './http-server';
import { apiServerID } from './instance-id';

test.each([
  [undefined, { kind: 'tcp', host: 'localhost', port: 4317 }],
  ['127.0.0.1:4317', { kind: 'tcp', host: '127.0.0.1', port: 4317 }],
  ['otel.example:55680', { kind: 'tcp', host: 'otel.example', port: 55680 }],
  ['dns:///otel:4317', { kind: 'tcp', host: 'otel', port: 4317 }],
  ['dns://8.8.8.8/otel:4317', { kind: 'tcp', host: 'otel', port: 4317 }],
  ['[::1]:4317', { kind: 'tcp', host: '::1', port: 4317 }],
  ['unix:///var/run/otel.sock', { kind: 'unix', url: 'unix:///var/run/otel.sock' }],
])('endpoint %s', (endpoint, target) => {
  expect(collectorTarget(endpoint, {})).toEqual(target);
});

test('an unset endpoint follows the OTLP environment variables', () => {
  expect(collectorTarget(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({ kind: 'tcp', host: 'collector', port: 4318 });
});

test.each([
  ['GET', undefined, 'GET'],
  ['GET', { isResourceRequest: false }, 'GET'],
  ['GET', { isResourceRequest: true, apiPrefix: 'api', apiVersion: 'v1', namespace: 'default', resource: 'pods', name: 'foo' }, 'GET /api/v1/namespaces/{:namespace}/pods/{:name}'],
  ['GET', { isResourceRequest: true, apiPrefix: 'api', apiVersion: 'v1', resource: 'pods' }, 'GET /api/v1/pods'],
  ['POST', { isResourceRequest: true, apiPrefix: 'apis', apiGroup: 'apps', apiVersion: 'v1', namespace: 'x', resource: 'deployments' }, 'POST /apis/apps/v1/namespaces/{:namespace}/deployments'],
  ['PUT', { isResourceRequest: true, apiPrefix: 'api', apiVersion: 'v1', resource: 'nodes', name: 'n1', subresource: 'status' }, 'PUT /api/v1/nodes/{:name}/status'],
])('%s %j is named %s', (method, info, name) => {
  expect(serverSpanName(method, info)).toBe(name);
});

test('the instance id has kube-apiserver’s shape and is stable per host', () => {
  expect(apiServerID('node-a')).toMatch(/^apiserver-[a-z2-7]{26}$/);
  expect(apiServerID('node-a')).toBe(apiServerID('node-a'));
  expect(apiServerID('node-a')).not.toBe(apiServerID('node-b'));
});
