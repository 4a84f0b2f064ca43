// The apiserver on a real etcd: the `store` check fails while etcd is stopped and recovers when it returns,
// with no restart of the API server and nothing lost.
import { startEtcd, waitFor, type EtcdServer } from '@cl/testing';
import { EtcdStore } from '@cl/store';
import { httpsGet, kubectl, startApiserverProcess, type ApiserverProcess } from './harness';

jest.setTimeout(180_000);

describe('apiserver with --store-servers', () => {
  let etcd: EtcdServer;
  let api: ApiserverProcess;
  beforeAll(async () => {
    etcd = await startEtcd();
    api = await startApiserverProcess([`--store-servers=${etcd.url}`]);
  });
  afterAll(async () => {
    await api.cleanup();
    await etcd.destroy();
  });

  test('bootstrap objects are written to etcd under the /registry prefix', async () => {
    const store = new EtcdStore({ servers: [etcd.url], prefix: '/registry' });
    try {
      await waitFor(async () => ((await store.get('/clusterroles/system:public-info-viewer')) ? true : undefined), 'bootstrap roles');
      const ns = await store.range('/namespaces/');
      expect(ns.kvs.map((kv) => kv.key)).toEqual(['/namespaces/default', '/namespaces/kube-node-lease', '/namespaces/kube-public', '/namespaces/kube-system']);
    } finally {
      await store.close();
    }
  });

  test('store check: fails while etcd is down (kubectl exits 1 with InternalError), recovers after, nothing lost', async () => {
    await etcd.stop();
    const failing = await waitFor(async () => {
      const r = await httpsGet(api, '/readyz');
      return r.status === 500 ? r : undefined;
    }, 'readyz to fail');
    expect(failing.body).toContain('[+]log ok\n[-]store failed: reason withheld\n');
    expect(failing.body).not.toMatch(/error getting data/);
    const k = kubectl(api.kubeconfig, ['get', '--raw', '/readyz']);
    expect(k.status).toBe(1);
    expect(k.stderr).toMatch(/^Error from server \(InternalError\): an error on the server \("\[\+\]ping ok\\n\[\+\]log ok\\n\[-\]store failed: reason withheld\\n/);
    expect(k.stderr).toContain('readyz check failed") has prevented the request from succeeding');
    const one = await httpsGet(api, '/livez/store');
    expect(one.body).toMatch(/^internal server error: error getting data from store: /);
    expect((await httpsGet(api, '/livez/ping')).status).toBe(200);

    await etcd.start();
    await waitFor(async () => ((await httpsGet(api, '/readyz')).status === 200 ? true : undefined), 'readyz to recover');
    const store = new EtcdStore({ servers: [etcd.url] });
    try {
      expect(await store.get('/namespaces/kube-system')).not.toBeNull();
    } finally {
      await store.close();
    }
    expect(api.child.exitCode).toBeNull();
  });
});
