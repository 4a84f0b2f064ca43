// A real client, @kubernetes/client-node, in its own process (the package is ESM-only): typed calls, then an
// informer on one namespace's config maps whose events are printed as JSON lines for the test to read.
// Usage: node client-node-scenario.mjs <kubeconfig> <namespace>
import * as k8s from '@kubernetes/client-node';

const [kubeconfig, namespace] = process.argv.slice(2);
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);
const core = kc.makeApiClient(k8s.CoreV1Api);
const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');

try {
  const created = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'typed' }, data: { a: '1' } } });
  say({ step: 'create', name: created.metadata.name, rv: created.metadata.resourceVersion, data: created.data });
  const patched = await core.patchNamespacedConfigMap(
    { name: 'typed', namespace, body: { data: { b: '2' } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
  say({ step: 'patch', data: patched.data });
  // Server-side apply: the applier owns what it applied; the merge patch's field stays its writer's.
  const applied = await core.patchNamespacedConfigMap(
    { name: 'typed', namespace, fieldManager: 'client-node', force: true, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'typed' }, data: { a: '1', c: '3' } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply),
  );
  const appliers = applied.metadata.managedFields.filter((m) => m.operation === 'Apply');
  say({ step: 'apply', data: applied.data, appliers: appliers.map((m) => ({ manager: m.manager, fields: m.fieldsV1 })) });
  const list = await core.listNamespacedConfigMap({ namespace });
  say({ step: 'list', kind: list.kind, names: list.items.map((i) => i.metadata.name) });
  await core.deleteNamespacedConfigMap({ name: 'typed', namespace });
  try {
    await core.readNamespacedConfigMap({ name: 'typed', namespace });
    say({ step: 'read-after-delete', found: true });
  } catch (e) {
    say({ step: 'read-after-delete', code: e.code, reason: JSON.parse(e.body).reason });
  }
} catch (e) {
  say({ step: 'failed', error: String(e), body: e.body });
  process.exit(1);
}

const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => core.listNamespacedConfigMap({ namespace }));
for (const type of ['add', 'update', 'delete']) informer.on(type, (o) => say({ event: type, name: o.metadata.name, data: o.data ?? {} }));
informer.on('connect', () => say({ event: 'connect' }));
// As the client's docs advise: an informer stops on an error and is started again by its owner.
informer.on('error', (e) => {
  say({ event: 'error', message: String(e?.message ?? e) });
  setTimeout(() => informer.start().catch(() => undefined), 500);
});
await informer.start();
say({ event: 'started' });
