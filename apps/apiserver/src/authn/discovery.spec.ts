import { storageVersionHash } from './discovery';

// The hashes a kube-apiserver 1.33 lists for these kinds in /api/v1 and /apis/apps/v1.
test.each([
  ['', 'v1', 'Pod', 'xPOwRZ+Yhw8='],
  ['', 'v1', 'ConfigMap', 'qFsyl6wFWjQ='],
  ['', 'v1', 'Namespace', 'Q3oi5N2YM8M='],
  ['', 'v1', 'Event', 'r2yiGXH7wu8='],
  ['apps', 'v1', 'Deployment', '8aSe+NMegvE='],
])('storageVersionHash(%j, %s, %s) is %s', (group, version, kind, hash) => {
  expect(storageVersionHash(group, version, kind)).toBe(hash);
});
