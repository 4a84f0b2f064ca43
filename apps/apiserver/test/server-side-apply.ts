// Field management and server-side apply through kubectl 1.33, registered into a suite that already runs a server
// (resources.e2e.spec.ts, on both store backends), so they add no server start of their own.
import type { ApiserverProcess } from './harness';
import { kubectlHelpers } from './harness';

interface Entry {
  manager: string;
  operation: string;
  subresource?: string;
  fieldsV1: Record<string, unknown>;
}

export function serverSideApplyTests(current: () => ApiserverProcess, namespace: string) {
  const { k, ok, file } = kubectlHelpers(current);
  const entries = (kind: string, name: string): Entry[] => JSON.parse(ok('get', kind, name, '-n', namespace, '-o', 'json', '--show-managed-fields')).metadata.managedFields;
  const managers = (kind: string, name: string) => entries(kind, name).map((e) => [e.manager, e.operation, e.subresource ?? '']);
  const cm = (name: string, data: Record<string, string>) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\ndata:\n${Object.entries(data).map(([key, v]) => `  ${key}: "${v}"`).join('\n')}\n`;

  test('apply --server-side: create, no-op, conflict, --force-conflicts, diff and dry run, a multi-document file', () => {
    const deployment = `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ssa, namespace: ${namespace}}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: ssa}}\n  template:\n    metadata: {labels: {app: ssa}}\n    spec:\n      containers: [{name: c, image: busybox}]\n`;
    const both = file('ssa.yaml', `${cm('ssa', { key: 'one' })}---\n${deployment}`);
    expect(ok('apply', '--server-side', '-f', both)).toBe('configmap/ssa serverside-applied\ndeployment.apps/ssa serverside-applied\n');
    const rv = JSON.parse(ok('get', 'cm', 'ssa', '-n', namespace, '-o', 'json')).metadata.resourceVersion;
    ok('apply', '--server-side', '-f', both);
    expect(JSON.parse(ok('get', 'cm', 'ssa', '-n', namespace, '-o', 'json')).metadata.resourceVersion).toBe(rv);
    expect(entries('cm', 'ssa')).toEqual([expect.objectContaining({ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': { 'f:key': {} } } })]);
    // The default output hides managedFields; --show-managed-fields shows them.
    expect(ok('get', 'cm', 'ssa', '-n', namespace, '-o', 'yaml')).not.toContain('managedFields');
    expect(ok('get', 'cm', 'ssa', '-n', namespace, '-o', 'yaml', '--show-managed-fields')).toContain('manager: kubectl\n    operation: Apply');

    ok('patch', 'cm', 'ssa', '-n', namespace, '-p', '{"data":{"key":"two"}}');
    const conflict = k('apply', '--server-side', '-f', file('ssa-cm.yaml', cm('ssa', { key: 'one' })));
    expect(conflict.status).toBe(1);
    expect(conflict.stderr).toContain('error: Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: .data.key\n');
    expect(ok('apply', '--server-side', '--force-conflicts', '-f', file('ssa-cm.yaml', cm('ssa', { key: 'one' })))).toBe('configmap/ssa serverside-applied\n');
    expect(managers('cm', 'ssa')).toEqual([['kubectl', 'Apply', '']]);

    const changed = file('ssa-three.yaml', cm('ssa', { key: 'three' }));
    const diff = k('diff', '--server-side', '-f', changed);
    expect(diff.status).toBe(1);
    expect(diff.stdout).toContain('-  key: one\n+  key: three\n');
    expect(ok('apply', '--server-side', '--dry-run=server', '-f', changed)).toBe('configmap/ssa serverside-applied (server dry run)\n');
    expect(JSON.parse(ok('get', 'cm', 'ssa', '-n', namespace, '-o', 'json')).data).toEqual({ key: 'one' });
    // A field no longer applied goes.
    ok('apply', '--server-side', '-f', file('ssa-two.yaml', cm('ssa', { other: 'x' })));
    expect(JSON.parse(ok('get', 'cm', 'ssa', '-n', namespace, '-o', 'json')).data).toEqual({ other: 'x' });
  });

  test('the managers of create, label, annotate, patch, replace and scale; the client-side to server-side switch', () => {
    ok('create', 'cm', 'managed', '-n', namespace, '--from-literal=x=y');
    ok('label', 'cm', 'managed', '-n', namespace, 'l=1');
    ok('annotate', 'cm', 'managed', '-n', namespace, 'a=1');
    ok('patch', 'cm', 'managed', '-n', namespace, '--type=merge', '-p', '{"data":{"p":"1"}}');
    expect(managers('cm', 'managed').sort()).toEqual([
      ['kubectl-annotate', 'Update', ''],
      ['kubectl-create', 'Update', ''],
      ['kubectl-label', 'Update', ''],
      ['kubectl-patch', 'Update', ''],
    ]);
    const live = JSON.parse(ok('get', 'cm', 'managed', '-n', namespace, '-o', 'json'));
    live.data.x = 'z';
    ok('replace', '-f', file('managed.json', JSON.stringify(live)));
    const byManager = new Map(entries('cm', 'managed').map((e) => [e.manager, e.fieldsV1]));
    expect(byManager.get('kubectl-replace')).toEqual({ 'f:data': { 'f:x': {} } });
    expect(byManager.get('kubectl-create')).toEqual({ 'f:data': {} });

    ok('scale', 'deployment', 'ssa', '-n', namespace, '--replicas=2');
    const scale = entries('deployment', 'ssa').find((e) => e.subresource === 'scale');
    expect(scale).toEqual(expect.objectContaining({ operation: 'Update', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }));

    // kubectl apply, then kubectl apply --server-side of a changed file: kubectl moves the client-side manager's
    // fields to its server-side one first (a JSON patch of managedFields), so there is no conflict.
    const csa = (v: string) => file('csa.yaml', cm('switched', { a: v }));
    ok('apply', '-f', csa('1'));
    expect(managers('cm', 'switched')).toEqual([['kubectl-client-side-apply', 'Update', '']]);
    expect(ok('apply', '--server-side', '-f', csa('2'))).toBe('configmap/switched serverside-applied\n');
    expect(JSON.parse(ok('get', 'cm', 'switched', '-n', namespace, '-o', 'json')).data).toEqual({ a: '2' });
    expect(managers('cm', 'switched').map(([m]) => m)).not.toContain('kubectl-client-side-apply');
  });
}
