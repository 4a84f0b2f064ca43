// @kubernetes/client-node as a real client of the resource API, on both store backends: typed create, patch,
// server-side apply, list, delete and read, then an informer (list, then watch) that sees every change, including changes made
// after the API server was restarted under it.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { waitFor } from '@cl/testing';
import { kubectl, startApiserverProcess, storeBackends, type ApiserverProcess } from './harness';

jest.setTimeout(300_000);

interface Line {
  step?: string;
  event?: string;
  name?: string;
  data?: Record<string, string>;
  [k: string]: unknown;
}

describe.each(storeBackends)('@kubernetes/client-node on %s', (_name, backend) => {
  let api: ApiserverProcess;
  let args: string[];
  let stopBackend: () => Promise<void>;
  let client: ChildProcess | undefined;
  const lines: Line[] = [];

  beforeAll(async () => {
    const b = await backend();
    args = b.args;
    stopBackend = b.stop;
    api = await startApiserverProcess(args);
    await waitFor(async () => (kubectl(api.kubeconfig, ['get', 'ns', 'default']).status === 0 ? true : undefined), 'default namespace');
  });
  afterAll(async () => {
    client?.kill();
    await api?.cleanup();
    await stopBackend?.();
  });

  const seen = (pred: (l: Line) => boolean, what: string) => waitFor(async () => lines.find(pred), what);

  test('typed calls, then an informer that keeps every change across an API server restart', async () => {
    expect(kubectl(api.kubeconfig, ['create', 'ns', 'informed']).status).toBe(0);
    // The root CA publisher's config map, which every namespace gets, is there before the client lists.
    await waitFor(async () => (kubectl(api.kubeconfig, ['get', 'cm', 'kube-root-ca.crt', '-n', 'informed']).status === 0 ? true : undefined), 'kube-root-ca.crt');
    client = spawn(process.execPath, [join(__dirname, 'client-node-scenario.mjs'), api.kubeconfig, 'informed'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let buf = '';
    client.stdout!.on('data', (d) => {
      buf += d;
      const parts = buf.split('\n');
      buf = parts.pop()!;
      for (const p of parts) if (p.trim()) lines.push(JSON.parse(p) as Line);
    });
    let err = '';
    client.stderr!.on('data', (d) => (err += d));

    await seen((l) => l.event === 'started' || l.step === 'failed', `the client to start (${err})`);
    expect(lines.filter((l) => l.step)).toEqual([
      { step: 'create', name: 'typed', rv: expect.stringMatching(/^\d+$/), data: { a: '1' } },
      { step: 'patch', data: { a: '1', b: '2' } },
      { step: 'apply', data: { a: '1', b: '2', c: '3' }, appliers: [{ manager: 'client-node', fields: { 'f:data': { 'f:a': {}, 'f:c': {} } } }] },
      { step: 'list', kind: 'ConfigMapList', names: ['kube-root-ca.crt', 'typed'] },
      { step: 'read-after-delete', code: 404, reason: 'NotFound' },
    ]);

    expect(kubectl(api.kubeconfig, ['create', 'cm', 'first', '-n', 'informed', '--from-literal=v=1']).status).toBe(0);
    await seen((l) => l.event === 'add' && l.name === 'first', 'the informer to see the first config map');

    // The API server goes away and comes back on the same port and store.
    const { port, dir } = api;
    await api.kill('SIGTERM');
    api = await startApiserverProcess(args, { dir, port });
    expect(kubectl(api.kubeconfig, ['patch', 'cm', 'first', '-n', 'informed', '--type=merge', '-p', '{"data":{"v":"2"}}']).status).toBe(0);
    expect(kubectl(api.kubeconfig, ['create', 'cm', 'second', '-n', 'informed']).status).toBe(0);
    expect(kubectl(api.kubeconfig, ['delete', 'cm', 'first', '-n', 'informed']).status).toBe(0);

    await seen((l) => l.event === 'delete' && l.name === 'first', 'the informer to see the deletion after the restart');
    await seen((l) => l.event === 'add' && l.name === 'second', 'the informer to see the second config map');
    const changes = lines
      .filter((l) => (l.event === 'add' || l.event === 'update' || l.event === 'delete') && l.name !== 'kube-root-ca.crt')
      .map((l) => `${l.event} ${l.name} ${JSON.stringify(l.data)}`);
    // Every change, in order; an update may be folded into the delete if the informer relisted in between.
    expect(changes[0]).toBe('add first {"v":"1"}');
    expect(changes.slice(1).filter((c) => !c.startsWith('update'))).toEqual(expect.arrayContaining(['add second {}', 'delete first {"v":"2"}']));
    const updates = changes.filter((c) => c.startsWith('update'));
    expect(updates.every((u) => u === 'update first {"v":"2"}')).toBe(true);
  });
});
