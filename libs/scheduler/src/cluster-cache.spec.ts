import { node, pod } from '../test/fixtures';
import { ClusterCache } from './cluster-cache';

const requested = (c: ClusterCache, name: string) => c.nodeInfo(name)!.requested.milliCPU;

test('an assumed pod counts at once; the watch confirms it; forget() only takes back assumptions', () => {
  const c = new ClusterCache();
  c.setNode(node('n'));
  const p = pod('p', { requests: { cpu: '1' } });
  c.assume(p, 'n');
  expect(requested(c, 'n')).toBe(1000);
  // Our own status write arrives first, still unbound: the assumption stands.
  c.setPod(p);
  expect(requested(c, 'n')).toBe(1000);
  c.setPod({ ...p, spec: { ...p.spec, nodeName: 'n' } });
  expect(c.isAssumed('default/p')).toBe(false);
  c.forget('default/p');
  expect(requested(c, 'n')).toBe(1000);
});

test('a failed binding frees the room', () => {
  const c = new ClusterCache();
  c.setNode(node('n'));
  c.assume(pod('p', { requests: { cpu: '1' } }), 'n');
  c.forget('default/p');
  expect(requested(c, 'n')).toBe(0);
});

test('terminated and deleted pods free their room; pods of a node that comes later count on it', () => {
  const c = new ClusterCache();
  const p = pod('p', { requests: { cpu: '1' }, nodeName: 'n' });
  c.setPod(p);
  c.setPod({ ...pod('q', { requests: { cpu: '2' }, nodeName: 'n' }) });
  c.setNode(node('n'));
  expect(requested(c, 'n')).toBe(3000);
  c.setPod({ ...p, status: { phase: 'Succeeded' } });
  expect(requested(c, 'n')).toBe(2000);
  c.removePod('default/q');
  expect(requested(c, 'n')).toBe(0);
  expect(c.snapshot().map((i) => i.node.metadata.name)).toEqual(['n']);
});
