#!/usr/bin/env node
// bench/authz: authorized requests per second through a Webhook authorizer with warm caches, against the same
// API server binary with --authorization-mode=AlwaysAllow, in the same run. The request is an anonymous
// GET /healthz/ping (a per-check path, so the public-info rule does not short-cut it): with the webhook, every
// request builds the SubjectAccessReview spec and its cache key and finds the cached answer.
// The machine is shared, so the two servers are measured in alternating short windows and the ratio is the
// median of the per-pair ratios (background load changes between windows far more than within one pair).
// Usage: node bench/authz/run.js [--duration=2] [--connections=10] [--rounds=8]   (after `npx nx build apiserver`)
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const https = require('node:https');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { createCA, issueClientCert, issueServingCert } = require('@cl/pki');
const { numberArg, startApiserver, compareAlternating } = require('../lib/https-load');

const DURATION = numberArg('duration', 2);
const CONNECTIONS = numberArg('connections', 10);
const ROUNDS = numberArg('rounds', 8);

/** A webhook that allows everything and counts its calls (mTLS, as a real one would be). */
async function startWebhook(dir) {
  const ca = await createCA('bench-authz-ca');
  const serving = await issueServingCert(ca, { hosts: ['127.0.0.1'] });
  const client = await issueClientCert(ca, { cn: 'cl-apiserver' });
  writeFileSync(join(dir, 'ca.pem'), ca.certPem);
  writeFileSync(join(dir, 'client.pem'), client.certPem);
  writeFileSync(join(dir, 'client-key.pem'), client.keyPem);
  const hook = { calls: 0 };
  hook.server = https.createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    req.resume();
    req.on('end', () => {
      hook.calls++;
      res.setHeader('Content-Type', 'application/json');
      res.end('{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{"allowed":true}}');
    });
  });
  await new Promise((r) => hook.server.listen(0, '127.0.0.1', r));
  const kubeconfig = join(dir, 'webhook.kubeconfig');
  writeFileSync(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster: {server: "https://127.0.0.1:${hook.server.address().port}/authorize", certificate-authority: ca.pem}\nusers:\n- name: a\n  user: {client-certificate: client.pem, client-key: client-key.pem}\ncontexts:\n- name: c\n  context: {cluster: w, user: a}\ncurrent-context: c\n`,
  );
  const config = join(dir, 'authz.yaml');
  writeFileSync(
    config,
    `apiVersion: apiserver.config.k8s.io/v1alpha1\nkind: AuthorizationConfiguration\nauthorizers:\n- type: Webhook\n  name: bench\n  webhook:\n    timeout: 5s\n    subjectAccessReviewVersion: v1\n    failurePolicy: NoOpinion\n    connectionInfo: {type: KubeConfigFile, kubeConfigFile: ${kubeconfig}}\n`,
  );
  return { hook, config };
}

async function main() {
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  const dir = mkdtempSync(join(tmpdir(), 'cl-bench-authz-'));
  const { hook, config } = await startWebhook(dir);
  const servers = [];
  try {
    const allow = await startApiserver(dir, 'allow', ['--authorization-mode=AlwaysAllow']);
    servers.push(allow);
    const webhook = await startApiserver(dir, 'webhook', [`--authorization-config=${config}`]);
    servers.push(webhook);
    const targets = [
      { name: 'AlwaysAllow', url: `${allow.base}/healthz/ping`, pid: allow.pid },
      { name: 'Webhook (warm cache)', url: `${webhook.base}/healthz/ping`, pid: webhook.pid },
    ];
    // The warm-up fills the webhook's answer cache; the measured rounds should not call the webhook at all.
    let callsAfterWarmup = 0;
    const r = await compareAlternating(targets, { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS, warmup: 3, afterWarmup: () => (callsAfterWarmup = hook.calls) });
    const { sums, usPerRequest } = r;
    const pairRatios = r.ratios['Webhook (warm cache)'];
    const ratio = r.medianRatio['Webhook (warm cache)'];
    const webhookCallsDuringMeasurement = hook.calls - callsAfterWarmup;
    // Server CPU per request is what the authorizer adds; unlike req/s it barely moves with the machine's other load.
    const cpuRatio = usPerRequest.AlwaysAllow / usPerRequest['Webhook (warm cache)'];
    console.log(`bench/authz: GET /healthz/ping, ${CONNECTIONS} keep-alive connections, ${ROUNDS} x ${DURATION}s each, HTTPS on 127.0.0.1`);
    console.log('authorizer              req/s     p50 ms  p99 ms  server CPU us/request');
    for (const [name, r] of Object.entries(sums)) {
      console.log(`${name.padEnd(22)} ${r.rps.toFixed(0).padStart(8)}  ${r.p50ms.toFixed(1).padStart(6)}  ${r.p99ms.toFixed(1).padStart(6)}  ${usPerRequest[name].toFixed(1).padStart(8)}`);
    }
    console.log(`webhook calls during the measurement: ${webhookCallsDuringMeasurement} (warm-up: ${callsAfterWarmup})`);
    console.log(`per-pair ratios: ${pairRatios.map((r) => r.toFixed(2)).join(' ')}`);
    console.log(`req/s ratio Webhook/AlwaysAllow (median of pairs): ${ratio.toFixed(2)}`);
    console.log(`capacity ratio from server CPU per request (AlwaysAllow/Webhook): ${cpuRatio.toFixed(2)}`);
    console.log(`target: 0.9 or more -> req/s ${ratio >= 0.9 ? 'met' : 'NOT met'}, CPU capacity ${cpuRatio >= 0.9 ? 'met' : 'NOT met'}`);
    console.log(JSON.stringify({ bench: 'authz', connections: CONNECTIONS, durationSeconds: DURATION, rounds: ROUNDS, results: sums, ratio, pairRatios, usPerRequest, cpuRatio, webhookCallsDuringMeasurement }));
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
    hook.server.close();
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
