// The resource API through kubectl 1.33 against the built binary, on both store backends: discovery,
// explain, create/get/apply/label/annotate/patch/replace/delete, watches, conflicts and field errors, printed
// exactly as kubectl prints them for kube-apiserver; metadata-only answers over raw HTTPS.
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { waitFor, KUBECTL } from '@cl/testing';
import { httpsGet, kubectlHelpers, startApiserverProcess, storeBackends, type ApiserverProcess } from './harness';
import { serverSideApplyTests } from './server-side-apply';

jest.setTimeout(300_000);

describe.each(storeBackends)('kubectl 1.33 against the resource API on %s', (_name, backend) => {
  let api: ApiserverProcess;
  let stopBackend: () => Promise<void>;
  const { k, ok, file } = kubectlHelpers(() => api);

  beforeAll(async () => {
    const b = await backend();
    stopBackend = b.stop;
    api = await startApiserverProcess(b.args);
    // The bootstrap namespaces are written by a post-start hook; wait for them.
    await waitFor(async () => (k('get', 'ns', 'kube-system').status === 0 ? true : undefined), 'system namespaces');
  });
  afterAll(async () => {
    await api?.cleanup();
    await stopBackend?.();
  });

  test('api-resources and api-versions list the served kinds with short names and verbs', () => {
    const resources = ok('api-resources', '--no-headers');
    const rows = resources.trim().split('\n').map((l) => l.trim().split(/\s+/));
    const byName = new Map(rows.map((r) => [r[0], r]));
    expect(byName.get('namespaces')).toEqual(['namespaces', 'ns', 'v1', 'false', 'Namespace']);
    expect(byName.get('configmaps')).toEqual(['configmaps', 'cm', 'v1', 'true', 'ConfigMap']);
    expect(byName.get('leases')).toEqual(['leases', 'coordination.k8s.io/v1', 'true', 'Lease']);
    expect(byName.get('clusterrolebindings')).toEqual(['clusterrolebindings', 'rbac.authorization.k8s.io/v1', 'false', 'ClusterRoleBinding']);
    const wide = ok('api-resources', '-o', 'wide', '--api-group=coordination.k8s.io');
    expect(wide).toMatch(/leases\s+coordination.k8s.io\/v1\s+true\s+Lease\s+create,delete,deletecollection,get,list,patch,update,watch/);
    const versions = ok('api-versions').trim().split('\n');
    expect(versions).toEqual(expect.arrayContaining(['v1', 'coordination.k8s.io/v1', 'rbac.authorization.k8s.io/v1']));
  });

  test('aggregated discovery in the version the client asks for first, legacy documents otherwise', async () => {
    const get = (accept: string) => httpsGet(api, '/apis', { headers: { Accept: accept } });
    for (const version of ['v2', 'v2beta1']) {
      const r = await get(`application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList,application/json`);
      expect(r.headers['content-type']).toBe(`application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`);
      const doc = JSON.parse(r.body);
      expect(doc.apiVersion).toBe(`apidiscovery.k8s.io/${version}`);
      const rbac = doc.items.find((g: { metadata: { name: string } }) => g.metadata.name === 'rbac.authorization.k8s.io');
      expect(rbac.versions[0].resources.find((x: { resource: string }) => x.resource === 'roles').responseKind).toEqual({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' });
    }
    const legacy = JSON.parse((await get('application/json')).body);
    expect(legacy.kind).toBe('APIGroupList');
    const core = JSON.parse((await httpsGet(api, '/api/v1', {})).body);
    expect(core.resources.map((r: { name: string }) => r.name)).toEqual(expect.arrayContaining(['namespaces', 'namespaces/status', 'namespaces/finalize', 'configmaps']));
  });

  test('explain reads the OpenAPI v3 documents', () => {
    const out = ok('explain', 'configmap.data');
    expect(out).toMatch(/KIND:\s+ConfigMap/);
    expect(out).toMatch(/FIELD:\s+data <map\[string\]string>/);
  });

  test('explain --output=plaintext-openapiv2 reads /openapi/v2 in its protobuf form, as kubectl falls back to it', () => {
    const out = ok('explain', 'pods.spec.containers', '--output=plaintext-openapiv2');
    expect(out).toMatch(/^KIND:\s+Pod\nVERSION:\s+v1\n/);
    expect(out).toMatch(/RESOURCE: containers <\[\]Object>/);
    expect(out).toMatch(/FIELDS:\n\s+args\s+<\[\]string>/);
  });

  test('discovery gives each stored resource its storageVersionHash, the legacy documents only', async () => {
    const hashes = (list: { resources: { name: string; storageVersionHash?: string }[] }) => Object.fromEntries(list.resources.map((r) => [r.name, r.storageVersionHash]));
    const core = hashes(JSON.parse(ok('get', '--raw', '/api/v1')));
    // The values kube-apiserver 1.33 lists; subresources have none.
    expect(core).toMatchObject({ pods: 'xPOwRZ+Yhw8=', configmaps: 'qFsyl6wFWjQ=', namespaces: 'Q3oi5N2YM8M=', events: 'r2yiGXH7wu8=', 'pods/status': undefined });
    expect(hashes(JSON.parse(ok('get', '--raw', '/apis/apps/v1'))).deployments).toBe('8aSe+NMegvE=');
    // events.k8s.io/v1 events are stored as core v1 events.
    expect(hashes(JSON.parse(ok('get', '--raw', '/apis/events.k8s.io/v1'))).events).toBe('r2yiGXH7wu8=');
    const aggregated = await httpsGet(api, '/api', { headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    expect(aggregated.body).not.toContain('storageVersionHash');
  });

  test('create -f of a multi-document file, then get in every output form', async () => {
    const f = file(
      'multi.yaml',
      `apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
  labels: {tier: web}
data:
  color: blue
  size: large
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: shop
stringData:
  password: hunter2
`,
    );
    expect(ok('create', '-f', f)).toBe('namespace/shop created\nconfigmap/settings created\nsecret/creds created\n');
    const table = ok('get', 'cm', 'settings', '-n', 'shop');
    expect(table).toMatch(/^NAME\s+DATA\s+AGE\nsettings\s+2\s+\d+s\n$/);
    const y = ok('get', 'cm', 'settings', '-n', 'shop', '-o', 'yaml');
    expect(y).toContain('kind: ConfigMap');
    expect(y).toMatch(/resourceVersion: "\d+"/);
    expect(y).toMatch(/uid: [0-9a-f-]{36}/);
    const j = JSON.parse(ok('get', 'cm', 'settings', '-n', 'shop', '-o', 'json'));
    expect(j.data).toEqual({ color: 'blue', size: 'large' });
    // Beside the root CA publisher's kube-root-ca.crt, which every namespace gets.
    await waitFor(async () => (k('get', 'cm', 'kube-root-ca.crt', '-n', 'shop').status === 0 ? true : undefined), 'kube-root-ca.crt in shop');
    expect(ok('get', 'cm', '-n', 'shop', '-o', 'name')).toBe('configmap/kube-root-ca.crt\nconfigmap/settings\n');
    expect(ok('get', 'cm', 'settings', '-n', 'shop', '-o', 'jsonpath={.data.color}')).toBe('blue');
    expect(ok('get', 'cm', '-n', 'shop', '-l', 'tier=web', '-o', 'name')).toBe('configmap/settings\n');
    // != also selects objects without the label.
    expect(ok('get', 'cm', '-n', 'shop', '-l', 'tier!=web', '-o', 'name')).toBe('configmap/kube-root-ca.crt\n');
    expect(ok('get', 'cm', '-n', 'shop', '-l', 'tier,tier!=web', '-o', 'name')).toBe('');
    expect(ok('get', 'cm', '-A', '--field-selector', 'metadata.namespace=shop', '-o', 'name')).toBe('configmap/kube-root-ca.crt\nconfigmap/settings\n');
    // stringData became data and is not stored.
    const secret = JSON.parse(ok('get', 'secret', 'creds', '-n', 'shop', '-o', 'json'));
    expect(secret.type).toBe('Opaque');
    expect(Buffer.from(secret.data.password, 'base64').toString()).toBe('hunter2');
    expect(secret.stringData).toBeUndefined();
    expect(ok('get', 'secret', '-n', 'shop')).toMatch(/^NAME\s+TYPE\s+DATA\s+AGE\ncreds\s+Opaque\s+1\s+\d+s\n$/);
    expect(ok('get', 'ns', 'shop')).toMatch(/^NAME\s+STATUS\s+AGE\nshop\s+Active\s+\d+s\n$/);
    expect(ok('get', 'ns', 'shop', '--show-labels')).toMatch(/kubernetes.io\/metadata.name=shop/);
  });

  test('get -w prints the list, then a later change', async () => {
    ok('create', 'configmap', 'watched', '-n', 'default', '--from-literal=a=1');
    const child = spawn(KUBECTL, ['--kubeconfig', api.kubeconfig, 'get', 'cm', 'watched', '-n', 'default', '-w', '-o', 'jsonpath={.data.a}{"\\n"}'], { env: { ...process.env, HOME: api.dir } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    try {
      await waitFor(async () => (out.includes('1\n') ? true : undefined), 'the listed state');
      ok('patch', 'cm', 'watched', '-n', 'default', '--type=merge', '-p', '{"data":{"a":"2"}}');
      await waitFor(async () => (out.includes('2\n') ? true : undefined), 'the watched change');
      expect(out).toBe('1\n2\n');
    } finally {
      child.kill();
    }
  });

  test('apply twice with a change in between, then label and annotate', () => {
    const manifest = (color: string) =>
      file('apply.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: default\ndata:\n  color: ${color}\n  keep: "yes"\n`);
    expect(ok('apply', '-f', manifest('red'))).toBe('configmap/applied created\n');
    expect(ok('apply', '-f', manifest('green'))).toBe('configmap/applied configured\n');
    expect(ok('apply', '-f', manifest('green'))).toBe('configmap/applied unchanged\n');
    const cm = JSON.parse(ok('get', 'cm', 'applied', '-o', 'json'));
    expect(cm.data).toEqual({ color: 'green', keep: 'yes' });
    expect(cm.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain('"green"');
    expect(ok('label', 'cm', 'applied', 'team=blue')).toBe('configmap/applied labeled\n');
    expect(ok('annotate', 'cm', 'applied', 'note=hello')).toBe('configmap/applied annotated\n');
    const after = JSON.parse(ok('get', 'cm', 'applied', '-o', 'json'));
    expect(after.metadata.labels).toEqual({ team: 'blue' });
    expect(after.metadata.annotations.note).toBe('hello');
    expect(ok('label', 'cm', 'applied', 'team-')).toBe('configmap/applied unlabeled\n');
  });

  test('patch as strategic merge, merge and JSON patch', () => {
    ok('create', 'cm', 'patched', '--from-literal=a=1', '--from-literal=b=2');
    expect(ok('patch', 'cm', 'patched', '-p', '{"data":{"c":"3"}}')).toBe('configmap/patched patched\n');
    expect(ok('patch', 'cm', 'patched', '--type=merge', '-p', '{"data":{"a":null}}')).toBe('configmap/patched patched\n');
    expect(ok('patch', 'cm', 'patched', '--type=json', '-p', '[{"op":"replace","path":"/data/b","value":"20"}]')).toBe('configmap/patched patched\n');
    expect(JSON.parse(ok('get', 'cm', 'patched', '-o', 'json')).data).toEqual({ b: '20', c: '3' });
    // Finalizers are a set in strategic merge patch: a new item is added (before the others, as upstream), not a replacement.
    ok('patch', 'cm', 'patched', '-p', '{"metadata":{"finalizers":["example.com/a"]}}');
    ok('patch', 'cm', 'patched', '-p', '{"metadata":{"finalizers":["example.com/b"]}}');
    expect(JSON.parse(ok('get', 'cm', 'patched', '-o', 'json')).metadata.finalizers).toEqual(['example.com/b', 'example.com/a']);
    ok('patch', 'cm', 'patched', '--type=merge', '-p', '{"metadata":{"finalizers":null}}');
    const bad = k('patch', 'cm', 'patched', '--type=json', '-p', '[{"op":"test","path":"/data/b","value":"nope"}]');
    expect(bad.status).not.toBe(0);
    const missing = k('patch', 'cm', 'no-such', '-p', '{"data":{"x":"1"}}');
    expect(missing.stderr).toBe('Error from server (NotFound): configmaps "no-such" not found\n');
  });

  test('replace carries the resourceVersion; a stale one is a Conflict', async () => {
    ok('create', 'cm', 'replaced', '--from-literal=v=1');
    const current = JSON.parse(ok('get', 'cm', 'replaced', '-o', 'json'));
    current.data.v = '2';
    expect(ok('replace', '-f', file('replace.json', JSON.stringify(current)))).toBe('configmap/replaced replaced\n');
    // The same (now stale) resourceVersion again.
    current.data.v = '3';
    const stale = k('replace', '-f', file('stale.json', JSON.stringify(current)));
    expect(stale.status).toBe(1);
    expect(stale.stderr).toBe(
      'Error from server (Conflict): error when replacing "' + join(api.dir, 'stale.json') + '": Operation cannot be fulfilled on configmaps "replaced": the object has been modified; please apply your changes to the latest version and try again\n',
    );
    expect(JSON.parse(ok('get', 'cm', 'replaced', '-o', 'json')).data.v).toBe('2');
  });

  test('replace with resourceVersion "0" is an unconditional update', () => {
    ok('create', 'cm', 'zero', '--from-literal=v=1');
    ok('patch', 'cm', 'zero', '-p', '{"data":{"v":"2"}}');
    const manifest = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'zero', namespace: 'default', resourceVersion: '0' }, data: { v: '3' } };
    expect(ok('replace', '-f', file('zero.json', JSON.stringify(manifest)))).toBe('configmap/zero replaced\n');
    expect(JSON.parse(ok('get', 'cm', 'zero', '-o', 'json')).data).toEqual({ v: '3' });
  });

  test('a patch of the wrong shape is refused with upstream\'s message and changes nothing', () => {
    ok('create', 'cm', 'shaped', '--from-literal=v=1');
    const smp = k('patch', 'cm', 'shaped', '-p', '{"metadata":{"labels":"invalid"}}');
    expect(smp.stderr).toBe('The request is invalid: patch: Invalid value: "map[metadata:map[labels:invalid]]": cannot restore map from string\n');
    const merge = k('patch', 'cm', 'shaped', '--type=merge', '-p', '{"metadata":{"labels":"invalid"}}');
    expect(merge.stderr).toMatch(/^The request is invalid: patch: Invalid value: ".*": json: cannot unmarshal string into Go struct field \S+\.metadata\.labels of type map\[string\]string\n$/);
    expect(JSON.parse(ok('get', 'cm', 'shaped', '-o', 'json')).metadata.labels).toBeUndefined();
  });

  test('metadata-only get, list and watch (client-go\'s metadata client), in v1 and v1beta1', async () => {
    ok('create', 'cm', 'meta-only', '--from-literal=secret=value');
    const accept = (as: string, v: string) => `application/vnd.kubernetes.protobuf;as=${as};g=meta.k8s.io;v=${v},application/json;as=${as};g=meta.k8s.io;v=${v},application/json`;
    for (const v of ['v1', 'v1beta1']) {
      const got = await httpsGet(api, '/api/v1/namespaces/default/configmaps/meta-only', { headers: { Accept: accept('PartialObjectMetadata', v) } });
      expect(JSON.parse(got.body)).toEqual({ kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${v}`, metadata: expect.objectContaining({ name: 'meta-only', uid: expect.any(String) }) });
      const list = JSON.parse((await httpsGet(api, '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dmeta-only', { headers: { Accept: accept('PartialObjectMetadataList', v) } })).body);
      expect(list).toEqual({
        kind: 'PartialObjectMetadataList',
        apiVersion: `meta.k8s.io/${v}`,
        metadata: { resourceVersion: expect.any(String) },
        items: [{ kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${v}`, metadata: expect.objectContaining({ name: 'meta-only' }) }],
      });
    }
    const watch = await httpsGet(api, '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0&timeoutSeconds=1&fieldSelector=metadata.name%3Dmeta-only', { headers: { Accept: accept('PartialObjectMetadata', 'v1') } });
    expect(watch.body).not.toContain('value');
    expect(JSON.parse(watch.body.trim())).toEqual({ type: 'ADDED', object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: expect.objectContaining({ name: 'meta-only' }) } });
  });

  test('bad objects get their field errors; unknown fields are refused by strict validation', () => {
    const badName = k('create', 'cm', 'Bad_Name');
    expect(badName.status).toBe(1);
    // `create configmap` sends protobuf through a typed client, and prints the server's message after its own prefix.
    expect(badName.stderr).toMatch(/^error: failed to create configmap: ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of/);
    const unknown = k('create', '-f', file('unknown.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: u\ndatta:\n  a: b\n'));
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('strict decoding error: unknown field "datta"');
    const tls = k('create', '-f', file('tls.yaml', 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: t\ntype: kubernetes.io/tls\ndata:\n  tls.crt: YQ==\n'));
    expect(tls.stderr).toBe('The Secret "t" is invalid: data[tls.key]: Required value\n');
    const dupFile = file('dup.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup\n');
    ok('create', '-f', dupFile);
    expect(k('create', '-f', dupFile).stderr).toBe(`Error from server (AlreadyExists): error when creating "${dupFile}": configmaps "dup" already exists\n`);
    expect(k('create', 'cm', 'dup').stderr).toBe('error: failed to create configmap: configmaps "dup" already exists\n');
    expect(k('create', '-f', dupFile, '-n', 'no-such-namespace').stderr).toBe(`Error from server (NotFound): error when creating "${dupFile}": namespaces "no-such-namespace" not found\n`);
    const system = k('delete', 'ns', 'kube-system');
    expect(system.stderr).toBe('Error from server (Forbidden): namespaces "kube-system" is forbidden: this namespace may not be deleted\n');
    const dry = k('create', 'cm', 'dry', '--dry-run=server', '-o', 'name');
    expect(dry.stdout).toBe('configmap/dry\n');
    expect(k('get', 'cm', 'dry').stderr).toBe('Error from server (NotFound): configmaps "dry" not found\n');
  });

  test('delete of objects and of a namespace with objects in it', async () => {
    ok('create', 'ns', 'doomed');
    ok('create', 'cm', 'one', '-n', 'doomed');
    ok('create', 'sa', 'robot', '-n', 'doomed');
    expect(ok('delete', 'cm', 'one', '-n', 'doomed')).toBe('configmap "one" deleted\n');
    expect(ok('delete', 'ns', 'doomed', '--wait=true')).toBe('namespace "doomed" deleted\n');
    expect(k('get', 'ns', 'doomed').stderr).toBe('Error from server (NotFound): namespaces "doomed" not found\n');
    // kubectl looks up the namespace after a 404 and reports it missing.
    expect(k('get', 'sa', 'robot', '-n', 'doomed').stderr).toBe('Error from server (NotFound): namespaces "doomed" not found\n');
    expect(JSON.parse(ok('get', '--raw', '/api/v1/serviceaccounts?fieldSelector=metadata.namespace%3Ddoomed')).items).toEqual([]);
  });

  test('delete --cascade: background deletes dependents, orphan keeps them without the reference, foreground deletes them first', async () => {
    const child = (name: string, owner: string) => {
      const uid = JSON.parse(ok('get', 'cm', owner, '-o', 'json')).metadata.uid;
      ok('create', '-f', file(`${name}.json`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid }] } })));
    };
    const gone = (name: string) => waitFor(async () => (k('get', 'cm', name).status !== 0 ? true : undefined), `${name} to be deleted`);
    for (const cascade of ['background', 'orphan', 'foreground']) {
      ok('create', 'cm', `owner-${cascade}`);
      child(`child-${cascade}`, `owner-${cascade}`);
      expect(ok('delete', 'cm', `owner-${cascade}`, `--cascade=${cascade}`)).toBe(`configmap "owner-${cascade}" deleted\n`);
      await gone(`owner-${cascade}`);
      if (cascade === 'orphan') {
        await waitFor(async () => (JSON.parse(ok('get', 'cm', `child-${cascade}`, '-o', 'json')).metadata.ownerReferences === undefined ? true : undefined), 'the reference to go');
      } else {
        await gone(`child-${cascade}`);
      }
    }
  });

  test('a finalizer keeps a deleted object until it is removed', () => {
    ok('create', 'cm', 'held');
    ok('patch', 'cm', 'held', '-p', '{"metadata":{"finalizers":["example.com/hold"]}}');
    expect(ok('delete', 'cm', 'held', '--wait=false')).toBe('configmap "held" deleted\n');
    const held = JSON.parse(ok('get', 'cm', 'held', '-o', 'json'));
    expect(held.metadata.deletionTimestamp).toEqual(expect.any(String));
    ok('patch', 'cm', 'held', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]');
    expect(k('get', 'cm', 'held').stderr).toBe('Error from server (NotFound): configmaps "held" not found\n');
  });

  test('leases, events and RBAC objects are served; the bootstrap roles are readable', () => {
    ok('create', '-f', file('lease.yaml', 'apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: l1\nspec:\n  holderIdentity: me\n  leaseDurationSeconds: 40\n'));
    expect(ok('get', 'lease', 'l1')).toMatch(/^NAME\s+HOLDER\s+AGE\nl1\s+me\s+\d+s\n$/);
    expect(ok('get', 'clusterrole', 'cluster-admin', '-o', 'name')).toBe('clusterrole.rbac.authorization.k8s.io/cluster-admin\n');
    expect(ok('get', 'clusterrolebinding', 'cluster-admin')).toMatch(/^NAME\s+ROLE\s+AGE\ncluster-admin\s+ClusterRole\/cluster-admin\s+\S+\n$/);
    ok('create', 'role', 'reader', '--verb=get', '--resource=configmaps');
    ok('create', 'rolebinding', 'reader', '--role=reader', '--user=alice');
    expect(ok('get', 'rolebinding', 'reader', '-o', 'wide')).toMatch(/reader\s+Role\/reader\s+\S+\s+alice/);
    ok('create', '-f', file('event.yaml', 'apiVersion: v1\nkind: Event\nmetadata:\n  name: e1\ninvolvedObject:\n  kind: ConfigMap\n  name: applied\n  namespace: default\nreason: Tested\nmessage: it works\ntype: Normal\n'));
    expect(ok('get', 'events', '--field-selector', 'reason=Tested')).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n<unknown>\s+Normal\s+Tested\s+configmap\/applied\s+it works\n$/);
    // events.k8s.io/v1 is another view of the same events.
    ok('create', '-f', file('event-v1.yaml', 'apiVersion: events.k8s.io/v1\nkind: Event\nmetadata:\n  name: e2\neventTime: "2026-01-02T03:04:05.000000Z"\nreportingController: cl.io/test\nreportingInstance: test-1\naction: Testing\nreason: Structured\nregarding:\n  kind: ConfigMap\n  name: applied\n  namespace: default\nnote: from events.k8s.io\ntype: Warning\n'));
    const asCore = JSON.parse(ok('get', 'events.v1.', 'e2', '-o', 'json'));
    expect(asCore).toMatchObject({ apiVersion: 'v1', kind: 'Event', reportingComponent: 'cl.io/test', message: 'from events.k8s.io', involvedObject: { name: 'applied' }, type: 'Warning' });
    const asV1 = JSON.parse(ok('get', 'events.v1.events.k8s.io', 'e1', '-o', 'json'));
    expect(asV1).toMatchObject({ apiVersion: 'events.k8s.io/v1', kind: 'Event', note: 'it works', regarding: { name: 'applied' }, reason: 'Tested' });
    const missing = k('create', '-f', file('event-bad.yaml', 'apiVersion: events.k8s.io/v1\nkind: Event\nmetadata:\n  name: e3\ntype: Normal\n'));
    expect(missing.stderr).toBe(
      'The Event "e3" is invalid: \n* eventTime: Required value\n* reportingController: Required value\n* reportingInstance: Required value\n* action: Required value\n* reason: Required value\n',
    );
  });

  test('request and storage metrics name the resources', () => {
    const metrics = ok('get', '--raw', '/metrics');
    expect(metrics).toMatch(/apiserver_request_total\{code="200",component="apiserver",dry_run="",group="",resource="configmaps",scope="namespace",subresource="",verb="LIST",version="v1"\} \d+/);
    expect(metrics).toMatch(/apiserver_request_total\{code="201",component="apiserver",dry_run="",group="coordination.k8s.io",resource="leases",scope="namespace",subresource="",verb="POST",version="v1"\} 1/);
    expect(metrics).toMatch(/apiserver_storage_objects\{resource="namespaces"\} \d+/);
    expect(metrics).toContain('# TYPE apiserver_longrunning_requests gauge');
  });

  describe('field management and server-side apply', () => {
    beforeAll(() => void ok('create', 'ns', 'field-owners'));
    serverSideApplyTests(() => api, 'field-owners');
  });
});
