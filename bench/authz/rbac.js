#!/usr/bin/env node
// bench/authz/rbac.js: authorized requests per second with --authorization-mode=Node,RBAC and 1,000 roles and 1,000
// bindings (plus 1,000 cluster roles and cluster role bindings for other users) against the same binary with
// --authorization-mode=AlwaysAllow, in alternating windows (bench/lib/https-load). The request is an anonymous
// GET /healthz/ping, allowed by a ClusterRoleBinding of group system:unauthenticated: RBAC looks up that user's
// and groups' bindings in its subject index and walks their rules, whatever else is stored. Before that, the
// in-process cost of one RbacAuthorizer.authorize() with the same policy.
// Usage: node bench/authz/rbac.js [--duration=2] [--connections=10] [--rounds=8] [--objects=1000]
//        (after `npx nx run-many -t build -p apiserver rbac`)
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const https = require('node:https');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { createCA, issueClientCert } = require('@cl/pki');
const { RbacAuthorizer, RbacIndex, bootstrapClusterRoles, bootstrapClusterRoleBindings } = require('@cl/rbac');
const { numberArg, startApiserver, compareAlternating } = require('../lib/https-load');

const DURATION = numberArg('duration', 2);
const CONNECTIONS = numberArg('connections', 10);
const ROUNDS = numberArg('rounds', 8);
const OBJECTS = numberArg('objects', 1000);
const RBAC = 'rbac.authorization.k8s.io/v1';
const NAMESPACES = 20;

/** The bench policy: per object i a Role and RoleBinding (namespace ns-(i % 20), user user-i), a ClusterRole and a ClusterRoleBinding (user cuser-i); and the grant the measured request uses. */
function policy() {
  const objs = [];
  for (let i = 0; i < OBJECTS; i++) {
    const ns = `ns-${i % NAMESPACES}`;
    const rules = [{ apiGroups: [''], resources: ['pods', 'configmaps'], verbs: ['get', 'list'] }, { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'], resourceNames: [`d-${i}`] }];
    objs.push({ path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, body: { apiVersion: RBAC, kind: 'Role', metadata: { name: `role-${i}`, namespace: ns }, rules } });
    objs.push({ path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, body: { apiVersion: RBAC, kind: 'RoleBinding', metadata: { name: `rb-${i}`, namespace: ns }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `role-${i}` }, subjects: [{ kind: 'User', name: `user-${i}` }, { kind: 'Group', name: `team-${i % 50}` }] } });
    objs.push({ path: '/apis/rbac.authorization.k8s.io/v1/clusterroles', body: { apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: `cr-${i}` }, rules } });
    objs.push({ path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', body: { apiVersion: RBAC, kind: 'ClusterRoleBinding', metadata: { name: `crb-${i}` }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `cr-${i}` }, subjects: [{ kind: 'User', name: `cuser-${i}` }] } });
  }
  objs.push({ path: '/apis/rbac.authorization.k8s.io/v1/clusterroles', body: { apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: 'bench-ping' }, rules: [{ nonResourceURLs: ['/healthz/*'], verbs: ['get'] }] } });
  objs.push({ path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', body: { apiVersion: RBAC, kind: 'ClusterRoleBinding', metadata: { name: 'bench-ping' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'bench-ping' }, subjects: [{ kind: 'Group', name: 'system:unauthenticated' }] } });
  return objs;
}

const anonymousPing = { user: { username: 'system:anonymous', uid: '', groups: ['system:unauthenticated'], extra: {} }, verb: 'get', isResourceRequest: false, path: '/healthz/ping', namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };

/** ns per authorize() of the anonymous ping with the bench policy in memory (best of 3). */
function inProcess() {
  const index = new RbacIndex();
  for (const r of bootstrapClusterRoles()) index.put('ClusterRole', r);
  for (const b of bootstrapClusterRoleBindings()) index.put('ClusterRoleBinding', b);
  const kinds = { Role: 'Role', RoleBinding: 'RoleBinding', ClusterRole: 'ClusterRole', ClusterRoleBinding: 'ClusterRoleBinding' };
  for (const o of policy()) index.put(kinds[o.body.kind], o.body);
  const authz = new RbacAuthorizer(index);
  const calls = 300000;
  let best = Infinity;
  for (let rep = 0; rep < 3; rep++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) if (authz.authorize(anonymousPing).decision !== 'Allow') throw new Error('not allowed');
    best = Math.min(best, Number(process.hrtime.bigint() - t) / calls);
  }
  return best;
}

function post(base, admin, path, body) {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = https.request(`${base}${path}`, { method: 'POST', cert: admin.certPem, key: admin.keyPem, rejectUnauthorized: false, agent: admin.agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } }, (res) => {
      let out = '';
      res.on('data', (c) => (out += c));
      res.on('end', () => (res.statusCode < 300 || res.statusCode === 409 ? resolve() : reject(new Error(`${path}: ${res.statusCode} ${out}`))));
    });
    req.on('error', reject);
    req.end(text);
  });
}

async function main() {
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  const nsPerCall = inProcess();
  console.log(`bench/authz/rbac: in process, RbacAuthorizer.authorize() with ${OBJECTS} roles, role bindings, cluster roles and cluster role bindings: ${nsPerCall.toFixed(0)} ns/call`);
  const dir = mkdtempSync(join(tmpdir(), 'cl-bench-rbac-'));
  const servers = [];
  try {
    const ca = await createCA('bench-rbac-client-ca');
    writeFileSync(join(dir, 'client-ca.crt'), ca.certPem);
    const admin = { ...(await issueClientCert(ca, { cn: 'bench-admin', groups: ['system:masters'] })), agent: new https.Agent({ keepAlive: true, maxSockets: 8 }) };
    const allow = await startApiserver(dir, 'allow', ['--authorization-mode=AlwaysAllow']);
    servers.push(allow);
    const rbac = await startApiserver(dir, 'rbac', ['--authorization-mode=Node,RBAC', `--client-ca-file=${join(dir, 'client-ca.crt')}`]);
    servers.push(rbac);
    for (let i = 0; i < NAMESPACES; i++) await post(rbac.base, admin, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `ns-${i}` } });
    const objs = policy();
    for (let i = 0; i < objs.length; i += 8) await Promise.all(objs.slice(i, i + 8).map((o) => post(rbac.base, admin, o.path, o.body)));
    admin.agent.destroy();
    const targets = [
      { name: 'AlwaysAllow', url: `${allow.base}/healthz/ping`, pid: allow.pid },
      { name: 'Node,RBAC', url: `${rbac.base}/healthz/ping`, pid: rbac.pid },
    ];
    // The warm-up also waits out the index catching up with the last writes (a 403 would fail the load).
    const r = await compareAlternating(targets, { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS, warmup: 3 });
    const ratio = r.medianRatio['Node,RBAC'];
    const cpuRatio = r.usPerRequest.AlwaysAllow / r.usPerRequest['Node,RBAC'];
    console.log(`GET /healthz/ping (anonymous), ${CONNECTIONS} keep-alive connections, ${ROUNDS} x ${DURATION}s each, ${objs.length} RBAC objects stored`);
    console.log('authorizer              req/s     p50 ms  p99 ms  server CPU us/request');
    for (const [name, s] of Object.entries(r.sums)) {
      console.log(`${name.padEnd(22)} ${s.rps.toFixed(0).padStart(8)}  ${s.p50ms.toFixed(1).padStart(6)}  ${s.p99ms.toFixed(1).padStart(6)}  ${r.usPerRequest[name].toFixed(1).padStart(8)}`);
    }
    console.log(`per-pair ratios: ${r.ratios['Node,RBAC'].map((x) => x.toFixed(2)).join(' ')}`);
    console.log(`req/s ratio RBAC/AlwaysAllow (median of pairs): ${ratio.toFixed(2)}`);
    console.log(`capacity ratio from server CPU per request (AlwaysAllow/RBAC): ${cpuRatio.toFixed(2)}`);
    console.log(`target: 0.9 or more -> req/s ${ratio >= 0.9 ? 'met' : 'NOT met'}, CPU capacity ${cpuRatio >= 0.9 ? 'met' : 'NOT met'}`);
    console.log(JSON.stringify({ bench: 'authz-rbac', objects: objs.length, nsPerCall, results: r.sums, ratio, pairRatios: r.ratios['Node,RBAC'], usPerRequest: r.usPerRequest, cpuRatio }));
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
