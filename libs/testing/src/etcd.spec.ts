import { startEtcd } from './etcd';

test('starts a real etcd that listens on its loopback port, and stops it', async () => {
  const etcd = await startEtcd();
  try {
    const res = await fetch(`${etcd.url}/version`);
    expect(((await res.json()) as { etcdserver: string }).etcdserver).toMatch(/^3\./);
  } finally {
    await etcd.destroy();
  }
  await expect(fetch(`${etcd.url}/version`)).rejects.toThrow();
});
