// The apiserver's store: on a real etcd, the `store` check fails while etcd is stopped and recovers when it
// returns, with no restart of the API server and nothing lost; two API servers share one etcd and compact it
// once per interval between them; the embedded store refuses a file that is not its own.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd, waitFor, type EtcdServer } from '@cl/testing';
import { CompactedError, EtcdStore } from '@cl/store';
import { MAIN, httpsGet, kubectl, startApiserverProcess, type ApiserverProcess } from './harness';

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

describe('two API servers on one etcd', () => {
  let etcd: EtcdServer;
  const apis: ApiserverProcess[] = [];
  beforeAll(async () => {
    etcd = await startEtcd();
    for (let i = 0; i < 2; i++) apis.push(await startApiserverProcess([`--store-servers=${etcd.url}`, '--store-compaction-interval=1s']));
  });
  afterAll(async () => {
    for (const api of apis) await api.cleanup();
    await etcd.destroy();
  });

  test('both start on the same store and write the bootstrap objects once between them', async () => {
    for (const api of apis) expect((await httpsGet(api, '/readyz')).status).toBe(200);
    const viewer = new EtcdStore({ servers: [etcd.url], prefix: '/registry' });
    try {
      const ns = await viewer.range('/namespaces/');
      expect(ns.kvs.map((kv) => [kv.key, kv.version])).toEqual(
        ['default', 'kube-node-lease', 'kube-public', 'kube-system'].map((n) => [`/namespaces/${n}`, 1]),
      );
    } finally {
      await viewer.close();
    }
  });

  test('history is compacted on the interval, and only once per interval between the two', async () => {
    const store = new EtcdStore({ servers: [etcd.url], prefix: '/registry' });
    try {
      const early = (await store.put('/test/marker', 'early')).revision;
      await store.put('/test/marker', 'late');
      await waitFor(
        () => store.range('/test/', { revision: early }).then(() => false, (e) => e instanceof CompactedError),
        'the history before the marker to be compacted',
      );
      const compactions = apis.map((api) => (api.output().match(/store: compacted history up to revision/g) ?? []).length);
      const key = await store.get('/compact_rev_key');
      // Every compaction advanced the shared key once; a losing API server did not compact in that interval.
      expect(compactions[0] + compactions[1]).toBeGreaterThan(0);
      expect(compactions[0] + compactions[1]).toBeLessThanOrEqual(key!.version);
    } finally {
      await store.close();
    }
  });
});

describe('the embedded store file', () => {
  const cases: Array<[string, (file: string) => void, string]> = [
    ['a file that is not a database', (f) => writeFileSync(f, 'not a database, only text long enough to fill a header page'), 'is not a cl store: file is not a database'],
  ];
  test.each(cases)('refuses %s at start, naming the file, exit 1 before serving', (_what, write, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'cl-bad-store-'));
    try {
      mkdirSync(join(dir, 'data'));
      const file = join(dir, 'data', 'store.db');
      write(file);
      const r = spawnSync(process.execPath, [MAIN, '--secure-port=6443', '--bind-address=127.0.0.1', `--cert-dir=${join(dir, 'certs')}`, `--data-dir=${join(dir, 'data')}`], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`Error: store file ${file} ${message}`);
      expect(r.stdout + r.stderr).not.toContain('Serving securely');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
