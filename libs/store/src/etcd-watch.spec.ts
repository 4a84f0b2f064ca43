// Which etcd servers answer a progress request after the events before it, by version (upstream's
// RequestWatchProgress check): an older one's answer is never used (etcd-watch.ts).
import { ordersProgressRequests } from './etcd-watch';

test.each([
  ['3.4.23', false], // Debian's etcd-server
  ['3.4.30', false],
  ['3.4.31', true],
  ['3.5.0', false],
  ['3.5.12', false],
  ['3.5.13', true],
  ['3.6.0', true],
  ['3.6.0-rc.1', true],
  ['v3.5.17', true],
  ['4.0.0', true],
  ['2.3.8', false],
  ['', false],
  ['not a version', false],
])('etcd %s orders its answers to progress requests: %s', (version, ordered) => {
  expect(ordersProgressRequests(version)).toBe(ordered);
});
