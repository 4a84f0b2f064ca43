#!/usr/bin/env node
// bench/authz/chain.js: the authorizer chain alone, in process — nanoseconds per authorize() call for the API
// server's two shapes: AlwaysAllow, and the bootstrap rule + a Webhook authorizer with a warm cache. This is the
// cost the webhook adds to a request, free of the HTTP server and of the machine's other load.
// Usage: node bench/authz/chain.js [--calls=300000]   (after `npx nx build webhook-authz`)
const http = require('node:http');
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { AuthorizerChain, nonResourceAttributes } = require('@cl/webhook-authz');

const arg = (name, def) => Number((process.argv.find((a) => a.startsWith(`--${name}=`)) ?? `=${def}`).split('=')[1]);
const CALLS = arg('calls', 300000);

const attrs = nonResourceAttributes({ username: 'system:anonymous', uid: '', groups: ['system:unauthenticated'], extra: {} }, 'get', '/healthz/ping');
// The shape of the API server's bootstrap rule in front of a configured chain.
const bootstrap = { async authorize(a) { return a.user.groups.includes('system:masters') ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' }; } };

async function measure(chain) {
  for (let i = 0; i < 20000; i++) await chain.authorize(attrs); // warm-up (JIT, and the webhook's cache)
  const t = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await chain.authorize(attrs);
  return Number(process.hrtime.bigint() - t) / CALLS;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'cl-bench-authz-chain-'));
  let calls = 0;
  const hook = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls++;
      res.end('{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{"allowed":true}}');
    });
  });
  await new Promise((r) => hook.listen(0, '127.0.0.1', r));
  const kubeconfig = join(dir, 'kc.yaml');
  writeFileSync(kubeconfig, `clusters:\n- name: c\n  cluster: {server: "http://127.0.0.1:${hook.address().port}/authorize"}\ncontexts:\n- name: x\n  context: {cluster: c}\ncurrent-context: x\n`);
  const webhook = { authorizedTTL: 300000, unauthorizedTTL: 30000, timeout: 5000, subjectAccessReviewVersion: 'v1', failurePolicy: 'NoOpinion', connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig } };
  const allow = AuthorizerChain.fromConfig({ authorizers: [{ type: 'AlwaysAllow', name: 'alwaysallow' }] });
  const wh = AuthorizerChain.fromConfig({ authorizers: [{ type: 'Webhook', name: 'bench', webhook }] }, { prefix: [bootstrap] });
  try {
    const results = {};
    for (let rep = 0; rep < 3; rep++) {
      for (const [name, chain] of [['AlwaysAllow', allow], ['Webhook (warm cache)', wh]]) {
        const ns = await measure(chain);
        results[name] = Math.min(results[name] ?? Infinity, ns);
      }
    }
    console.log(`bench/authz/chain: ${CALLS} authorize() calls each, best of 3, in process`);
    for (const [name, ns] of Object.entries(results)) console.log(`${name.padEnd(22)} ${ns.toFixed(0).padStart(6)} ns/call`);
    const addedNs = results['Webhook (warm cache)'] - results.AlwaysAllow;
    console.log(`the webhook adds ${(addedNs / 1000).toFixed(2)} us per request (webhook calls made: ${calls}, all during warm-up)`);
    console.log(JSON.stringify({ bench: 'authz-chain', calls: CALLS, nsPerCall: results, addedMicroseconds: addedNs / 1000, webhookCalls: calls }));
  } finally {
    wh.close();
    hook.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
