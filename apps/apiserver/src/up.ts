#!/usr/bin/env node
// The README's main job: run the control plane on this machine on embedded defaults. Everything lives in one
// state directory (default ./.cl): the embedded store, the self-signed serving pair, a client CA with an
// admin certificate, and an admin kubeconfig for kubectl. Extra arguments are passed to the API server.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createCA, issueClientCert, type PemPair } from '@cl/pki';
import { apiserverFlags } from './options';
import { main } from './main';

async function ensurePair(dir: string, name: string, make: () => Promise<PemPair>): Promise<PemPair> {
  const crt = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  if (existsSync(crt) && existsSync(key)) return { certPem: readFileSync(crt, 'utf8'), keyPem: readFileSync(key, 'utf8') };
  const pair = await make();
  writeFileSync(key, pair.keyPem, { mode: 0o600 });
  writeFileSync(crt, pair.certPem, { mode: 0o644 });
  return pair;
}

function kubeconfig(server: string, caPem: string, admin: PemPair): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: cl',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${b64(caPem)}`,
    'users:',
    '- name: cl-admin',
    '  user:',
    `    client-certificate-data: ${b64(admin.certPem)}`,
    `    client-key-data: ${b64(admin.keyPem)}`,
    'contexts:',
    '- name: cl',
    '  context:',
    '    cluster: cl',
    '    user: cl-admin',
    'current-context: cl',
    '',
  ].join('\n');
}

function flagValue(args: string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === `--${name}`) return args[i + 1];
    if (args[i].startsWith(`--${name}=`)) return args[i].slice(name.length + 3);
  }
  return undefined;
}

async function up(argv: string[]): Promise<number> {
  const stateArg = argv.findIndex((a) => a === '--state-dir' || a.startsWith('--state-dir='));
  let stateDir = resolve('.cl');
  if (stateArg >= 0) {
    stateDir = resolve(argv[stateArg].includes('=') ? argv[stateArg].split('=')[1] : argv[stateArg + 1]);
    argv.splice(stateArg, argv[stateArg].includes('=') ? 1 : 2);
  }
  const pki = join(stateDir, 'pki');
  mkdirSync(pki, { recursive: true, mode: 0o700 });
  const clientCA = await ensurePair(pki, 'client-ca', () => createCA('cl-client-ca'));
  const admin = await ensurePair(pki, 'admin', () => issueClientCert(clientCA, { cn: 'cl-admin', groups: ['system:masters'] }));
  // What the API server shows node agents (logs, exec, port-forward): a client certificate of the same CA, as
  // kubeadm's apiserver-kubelet-client.
  await ensurePair(pki, 'apiserver-kubelet-client', () => issueClientCert(clientCA, { cn: 'kube-apiserver-kubelet-client', groups: ['system:masters'] }));

  const port = flagValue(argv, 'secure-port') ?? '6443';
  const bind = flagValue(argv, 'bind-address') ?? '127.0.0.1';
  const defaults = [`--secure-port=${port}`, `--bind-address=${bind}`, `--cert-dir=${join(stateDir, 'certs')}`, `--data-dir=${join(stateDir, 'data')}`];
  if (apiserverFlags().lookup('client-ca-file')) defaults.push(`--client-ca-file=${join(pki, 'client-ca.crt')}`);
  defaults.push(`--kubelet-client-certificate=${join(pki, 'apiserver-kubelet-client.crt')}`, `--kubelet-client-key=${join(pki, 'apiserver-kubelet-client.key')}`);
  const given = new Set(argv.filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=')[0]));
  const args = [...defaults.filter((d) => !given.has(d.slice(2).split('=')[0])), ...argv];

  const running = main(args);
  // The serving pair is written before the listener opens; wait for it, then publish the kubeconfig.
  const certFile = join(stateDir, 'certs', 'apiserver.crt');
  for (let i = 0; i < 200 && !existsSync(certFile); i++) await new Promise((r) => setTimeout(r, 50));
  if (existsSync(certFile)) {
    const pems = readFileSync(certFile, 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
    const ca = pems[pems.length - 1] ?? '';
    const host = bind === '0.0.0.0' ? '127.0.0.1' : bind === '::' ? '[::1]' : bind.includes(':') ? `[${bind}]` : bind;
    const file = join(stateDir, 'admin.kubeconfig');
    writeFileSync(file, kubeconfig(`https://${host}:${port}`, ca, admin), { mode: 0o600 });
    // tools/cluster/up.js prints its own banner once the node is Ready too.
    if (!process.env.CL_UP_QUIET) process.stdout.write(
      `\ncl is starting. Reach it with kubectl:\n\n  export KUBECONFIG=${file}\n  kubectl get --raw '/readyz?verbose'\n  kubectl get namespaces\n  kubectl create configmap hello --from-literal=greeting=hi && kubectl get configmaps\n\nStop it with Ctrl-C.\n\n`,
    );
  }
  return running;
}

up(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`Error: ${(e as Error).stack ?? e}\n`);
    process.exit(1);
  },
);
