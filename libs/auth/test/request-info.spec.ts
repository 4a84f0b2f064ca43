import { requestInfo } from '../src';
import { plainPath } from '../src/request-info';

type Row = [string, string, Partial<ReturnType<typeof requestInfo>>];

test.each<Row>([
  ['GET', '/api/v1/namespaces', { isResourceRequest: true, verb: 'list', resource: 'namespaces', apiVersion: 'v1', apiGroup: '' }],
  ['GET', '/api/v1/namespaces/other', { verb: 'get', resource: 'namespaces', name: 'other', namespace: 'other' }],
  ['GET', '/api/v1/namespaces/other/pods', { verb: 'list', resource: 'pods', namespace: 'other', name: '' }],
  ['GET', '/api/v1/namespaces/other/pods/foo', { verb: 'get', resource: 'pods', namespace: 'other', name: 'foo' }],
  ['HEAD', '/api/v1/namespaces/other/pods/foo', { verb: 'get', name: 'foo' }],
  ['GET', '/api/v1/pods', { verb: 'list', resource: 'pods', namespace: '' }],
  ['GET', '/api/v1/namespaces/other/pods/foo/log', { verb: 'get', subresource: 'log', name: 'foo' }],
  ['PUT', '/api/v1/namespaces/other/finalize', { verb: 'update', resource: 'namespaces', name: 'other', subresource: 'finalize' }],
  ['PUT', '/api/v1/namespaces/other/status', { verb: 'update', resource: 'namespaces', name: 'other', subresource: 'status' }],
  ['GET', '/api/v1/watch/namespaces/other/pods', { verb: 'watch', resource: 'pods', namespace: 'other' }],
  ['GET', '/api/v1/namespaces/other/pods?watch=true', { verb: 'watch', resource: 'pods' }],
  ['GET', '/api/v1/namespaces/other/pods?watch=1', { verb: 'watch' }],
  ['GET', '/api/v1/namespaces/other/pods?watch=false', { verb: 'list' }],
  ['DELETE', '/api/v1/namespaces/other/pods', { verb: 'deletecollection' }],
  ['DELETE', '/api/v1/namespaces/other/pods/foo', { verb: 'delete', name: 'foo' }],
  ['POST', '/api/v1/namespaces/other/pods', { verb: 'create' }],
  ['PATCH', '/api/v1/namespaces/other/pods/foo', { verb: 'patch' }],
  ['GET', '/apis/extensions/v1beta1/namespaces/other/pods', { apiGroup: 'extensions', apiVersion: 'v1beta1', resource: 'pods' }],
  ['POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiGroup: 'authentication.k8s.io', verb: 'create', resource: 'selfsubjectreviews' }],
  ['GET', '/api/v1/nodes?fieldSelector=metadata.name%3Dn1', { verb: 'list', name: 'n1', fieldSelector: [{ key: 'metadata.name', operator: 'Equals', values: ['n1'] }] }],
  ['GET', '/api/v1/pods?labelSelector=app%3Dx,tier%20in%20(a,b),!gone', { labelSelector: [
    { key: 'app', operator: 'Equals', values: ['x'] },
    { key: 'tier', operator: 'In', values: ['a', 'b'] },
    { key: 'gone', operator: 'DoesNotExist', values: [] },
  ] }],
  // API paths are split as sent, never resolved: a dot segment is a name (that the store refuses), not a step up.
  ['GET', '/api/v1/namespaces/default/configmaps/%2e%2e', { verb: 'get', resource: 'configmaps', namespace: 'default', name: '..', path: '/api/v1/namespaces/default/configmaps/%2e%2e' }],
  ['GET', '/api/v1/namespaces/default/configmaps/..', { verb: 'get', resource: 'configmaps', namespace: 'default', name: '..' }],
  ['PUT', '/api/v1/namespaces/default/secrets/./status', { verb: 'update', resource: 'secrets', name: '.', subresource: 'status' }],
  ['GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Anode', { resource: 'clusterroles', name: 'system:node' }],
  ['GET', '/api/v1/namespaces/a/configmaps/bad%zz', { name: 'bad%zz' }],
  ['GET', '/api', { isResourceRequest: false, verb: 'get', path: '/api' }],
  ['GET', '/api/v1', { isResourceRequest: false }],
  ['GET', '/apis/authentication.k8s.io', { isResourceRequest: false }],
  ['GET', '/apis/authentication.k8s.io/v1', { isResourceRequest: false }],
  ['GET', '/healthz', { isResourceRequest: false, verb: 'get', path: '/healthz' }],
  ['POST', '/version', { isResourceRequest: false, verb: 'post' }],
])('%s %s', (method, url, want) => {
  expect(requestInfo(method, url)).toMatchObject(want);
});

// The shortcut must give exactly what URL parsing gives, or decline.
test.each([
  '/livez',
  '/readyz?verbose&exclude=etcd',
  '/apis/apps.k8s.io/v1/namespaces/a-b/deployments/x_y~z',
  '/a//b/',
  "/weird/!$&'()*+,;=:@",
  '/',
  '//evil.example/x',
  '/a/../b',
  '/a/./b',
  '/a/..',
  '/%2e%2e/x',
  '/a\\b',
  '/sp ace',
  '/ünï',
  '/a#frag',
  '/a/.hidden/..x',
])('plainPath(%j) agrees with new URL', (url) => {
  const got = plainPath(url);
  if (got !== null) expect(got).toBe(new URL(url, 'http://local').pathname);
  expect(requestInfo('GET', url).path).toBe(new URL(url, 'http://local').pathname);
});

test.each(['/livez', '/readyz', '/apis/a.b/v1/x', '/a/.hidden/..x', '/a//b'])('plainPath takes the common path %j without the parser', (url) => {
  expect(plainPath(url)).not.toBeNull();
});
