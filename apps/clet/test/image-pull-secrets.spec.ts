// End to end, API-server mode: the built clet joined to the built API server with a private containerd. A pod's
// spec.imagePullSecrets are read from its namespace and their credentials reach the registry through the
// runtime's pull; a secret that does not exist is reported with upstream's FailedToRetrieveImagePullSecret
// warning and the pull goes on anonymously.
//
// The registry (./auth-registry) asks for Basic auth and serves no image, so the pulls themselves fail: the
// cases look at what the registry received and at the pods' events.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { waitFor as poll } from '@cl/testing';
import { basicAuth, startAuthRegistry, type AuthRegistry } from './auth-registry';
import { CletProcess, startJoinedAgent } from './clet-harness';
// Test helpers of other suites and tools/ fixtures: specs are never built, so relative imports are safe.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { kubectlHelpers, startApiserverProcess, writeKubeconfig, type ApiserverProcess } from '../../apiserver/test/harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ensureTestImages, PrivateContainerd, startContainerd } from '../../../tools/containerd/harness';

jest.setTimeout(180_000);

const NODE = 'pull-secrets-node';
let api: ApiserverProcess;
let ctd: PrivateContainerd;
let registry: AuthRegistry;
let tmp: string;
let clet: CletProcess | undefined;
const { ok, file } = kubectlHelpers(() => api);

/** Polls until `fn` gives a value; a failure shows the end of the agent's log and what the registry saw. */
function waitFor<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false): Promise<T> {
  return poll(async () => fn(), what, 600, 200).catch((e: Error) => {
    throw new Error(`${e.message}\nregistry saw: ${JSON.stringify(registry.seen)}\nclet:\n${clet?.stderr().slice(-3000)}`);
  });
}

type Event = { type: string; reason: string; message: string; involvedObject: { name: string } };
const eventsOf = (pod: string): Event[] =>
  (JSON.parse(ok('get', 'events', '--field-selector', `involvedObject.name=${pod}`, '-o', 'json')) as { items: Event[] }).items;

/** A pod bound to the node that always pulls `repo` from the registry, naming these pull secrets. */
function createPod(name: string, repo: string, secrets: string[]) {
  ok('create', '-f', file(`${name}.json`, JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
    spec: {
      nodeName: NODE, hostNetwork: true, terminationGracePeriodSeconds: 1,
      imagePullSecrets: secrets.map((s) => ({ name: s })),
      containers: [{ name: 'c', image: `127.0.0.1:${registry.port}/${repo}:v1`, imagePullPolicy: 'Always' }],
    },
  })));
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cl-pull-secrets-'));
  ctd = await startContainerd();
  // The sandbox image, imported (the agent's pods need it; this host has no network).
  ensureTestImages(ctd.socket);
  registry = await startAuthRegistry();
  api = await startApiserverProcess();
  writeKubeconfig(api);
  clet = await startJoinedAgent({ dir: tmp, kubeconfig: api.kubeconfig, containerRuntimeEndpoint: ctd.endpoint, nodeName: NODE });
});

afterAll(async () => {
  await clet?.stop();
  await api?.cleanup();
  await ctd?.stop();
  await registry?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('a dockerconfigjson pull secret made by kubectl reaches the registry as Basic auth', async () => {
  // kubectl writes the `auth` field (base64 user:pass) as well as username and password.
  ok('create', 'secret', 'docker-registry', 'regcred', `--docker-server=127.0.0.1:${registry.port}`, '--docker-username=bob', '--docker-password=hunter2');
  // A secret for another registry is read too but never sent to this one.
  ok('create', 'secret', 'docker-registry', 'othercred', '--docker-server=other.example.com', '--docker-username=eve', '--docker-password=nope');
  createPod('private', 'team/app', ['othercred', 'regcred']);

  const forApp = () => registry.seen.filter((s) => s.path.startsWith('/v2/team/app/'));
  await waitFor('the registry to see the secret\'s credentials', () => forApp().some((s) => s.authorization === basicAuth('bob', 'hunter2')));
  expect(forApp().every((s) => s.authorization === undefined || s.authorization === basicAuth('bob', 'hunter2'))).toBe(true);

  const events = await waitFor('the failed pull event', () => {
    const list = eventsOf('private');
    return list.some((e) => e.reason === 'Failed') && list;
  });
  expect(events.map((e) => e.reason)).toEqual(expect.arrayContaining(['Pulling', 'Failed']));
  expect(events.map((e) => e.reason)).not.toContain('FailedToRetrieveImagePullSecret');
  expect(events.find((e) => e.reason === 'Pulling')!.message).toBe(`Pulling image "127.0.0.1:${registry.port}/team/app:v1"`);
});

test('a missing pull secret is a FailedToRetrieveImagePullSecret warning, and the pull goes on anonymously', async () => {
  createPod('nosecret', 'team/other', ['missing', 'regcred-gone']);

  const warning = await waitFor('the FailedToRetrieveImagePullSecret event', () => eventsOf('nosecret').find((e) => e.reason === 'FailedToRetrieveImagePullSecret'));
  expect(warning.type).toBe('Warning');
  expect(warning.message).toBe('Unable to retrieve some image pull secrets (missing, regcred-gone); attempting to pull the image may not succeed.');

  await waitFor('the anonymous pull to reach the registry', () => registry.seen.some((s) => s.path.startsWith('/v2/team/other/')));
  await waitFor('the failed pull event', () => eventsOf('nosecret').some((e) => e.reason === 'Failed'));
  expect(registry.seen.filter((s) => s.path.startsWith('/v2/team/other/')).every((s) => s.authorization === undefined)).toBe(true);
  expect(clet!.stderr()).toContain('"Unable to retrieve pull secret, the image pull may not succeed."');
});
