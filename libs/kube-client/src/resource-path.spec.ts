import { queryString, resourcePath, type ResourceRef } from './resource-path';

test.each<[ResourceRef, string]>([
  [{ version: 'v1', resource: 'pods' }, '/api/v1/pods'],
  [{ group: '', version: 'v1', resource: 'pods', namespace: 'ns', name: 'p', subresource: 'status' }, '/api/v1/namespaces/ns/pods/p/status'],
  [{ version: 'v1', resource: 'nodes', name: 'n1' }, '/api/v1/nodes/n1'],
  [{ version: 'v1', resource: 'namespaces', name: 'kube-system' }, '/api/v1/namespaces/kube-system'],
  [{ group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespace: 'kube-node-lease', name: 'n1' }, '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1'],
  [{ group: 'storage.k8s.io', version: 'v1', resource: 'csinodes' }, '/apis/storage.k8s.io/v1/csinodes'],
  [{ version: 'v1', resource: 'serviceaccounts', namespace: 'ns', name: 'default', subresource: 'token' }, '/api/v1/namespaces/ns/serviceaccounts/default/token'],
  [{ version: 'v1', resource: 'configmaps', namespace: 'ns', name: 'a:b@c' }, '/api/v1/namespaces/ns/configmaps/a%3Ab%40c'],
])('%j -> %s', (ref, path) => {
  expect(resourcePath(ref)).toBe(path);
});

test.each<[string, ResourceRef, RegExp]>([
  ['a name with a slash', { version: 'v1', resource: 'pods', namespace: 'ns', name: '../secrets' }, /invalid name "..\/secrets"/],
  ['a name of ".."', { version: 'v1', resource: 'pods', name: '..' }, /invalid name/],
  ['a namespace with %', { version: 'v1', resource: 'pods', namespace: 'a%2f' }, /invalid namespace/],
  ['a subresource without a name', { version: 'v1', resource: 'pods', subresource: 'status' }, /needs a name/],
  ['no version', { version: '', resource: 'pods' }, /version is required/],
])('%s is refused', (_name, ref, message) => {
  expect(() => resourcePath(ref)).toThrow(message);
});

test.each([
  [undefined, ''],
  [{}, ''],
  [{ a: undefined }, ''],
  [{ watch: true, timeoutSeconds: 300, resourceVersion: '' }, '?watch=true&timeoutSeconds=300&resourceVersion='],
  [{ fieldSelector: 'spec.nodeName=n1,metadata.name!=x' }, '?fieldSelector=spec.nodeName%3Dn1%2Cmetadata.name%21%3Dx'],
])('queryString(%j) = %j', (q, want) => {
  expect(queryString(q)).toBe(want);
});
