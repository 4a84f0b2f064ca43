// The ReplicaSet and Deployment controllers against the real API server, run in this process on shared
// informers as a controller manager would run them. No node runs the pods (the server's scheduler is off), so the
// suite plays the node agent's part where a rollout needs it: it writes a pod's status (Running, Ready) through
// pods/status. Everything asserted is what a user sees through the API: objects, statuses, events, kubectl.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { isNotFound, SharedInformers, type KubeClient } from '@cl/kube-client';
import { KUBECTL } from '@cl/testing';
import { DeploymentController, ReplicaSetController } from '../src';
import type { Deployment, Pod, ReplicaSet } from '../src/workloads/types';
import { clientFor, eventually, startApiserverProcess, type ApiserverProcess } from './server';

let api: ApiserverProcess;
let client: KubeClient;
let informers: SharedInformers;
let replicaSets: ReplicaSetController;
let deployments: DeploymentController;
const log: string[] = [];

const NS = 'default';
const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NS}/deployments`;
const REPLICASETS = `/apis/apps/v1/namespaces/${NS}/replicasets`;
const PODS = `/api/v1/namespaces/${NS}/pods`;

interface CoreEvent {
  type: string;
  reason: string;
  message: string;
  source: { component?: string };
  involvedObject: { kind: string; name: string };
}

beforeAll(async () => {
  // The server's own scheduler would bind the pods to nodes that never run them (unbound pods are what we want),
  // and its own ReplicaSet and Deployment controllers would race the ones under test.
  api = await startApiserverProcess(['--enable-scheduler=false', '--controllers=*,-replicaset,-deployment']);
  client = clientFor(api);
  // Pods are refused until the namespace's default service account exists (its controller creates it at start).
  await eventually(() => client.get(`/api/v1/namespaces/${NS}/serviceaccounts/default`).catch(() => undefined), 'the default service account');
  informers = new SharedInformers(client);
  const ctx = { client, informers, log: (msg: string, fields?: Record<string, unknown>) => void log.push(`${msg} ${JSON.stringify(fields ?? {})}`) };
  replicaSets = new ReplicaSetController(ctx);
  deployments = new DeploymentController(ctx);
  await informers.start();
  await replicaSets.start();
  await deployments.start();
});

afterAll(async () => {
  await deployments?.stop();
  await replicaSets?.stop();
  informers?.stop();
  client?.close();
  await api?.cleanup();
});

// ----- what a user does ------------------------------------------------------------------------------------------

interface DeploymentOptions {
  replicas?: number;
  image?: string;
  strategy?: { type: string };
  revisionHistoryLimit?: number;
  progressDeadlineSeconds?: number;
  paused?: boolean;
}

function createDeployment(name: string, o: DeploymentOptions = {}): Promise<Deployment> {
  return client.create<Deployment>(DEPLOYMENTS, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: o.replicas ?? 3,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: o.image ?? 'nginx:1.27' }] } },
      strategy: o.strategy,
      revisionHistoryLimit: o.revisionHistoryLimit,
      progressDeadlineSeconds: o.progressDeadlineSeconds,
      paused: o.paused,
    },
  });
}

const getDeployment = (name: string) => client.get<Deployment>(`${DEPLOYMENTS}/${name}`);
const patchDeployment = (name: string, patch: unknown) => client.patch<Deployment>(`${DEPLOYMENTS}/${name}`, patch, 'merge');
const setImage = (name: string, image: string) => client.patch<Deployment>(`${DEPLOYMENTS}/${name}`, { spec: { template: { spec: { containers: [{ name: 'c', image }] } } } }, 'strategic');

/** The ReplicaSets the Deployment controls, oldest first. */
async function replicaSetsOf(name: string): Promise<ReplicaSet[]> {
  const d = await getDeployment(name);
  const { items } = await client.list<ReplicaSet>(REPLICASETS);
  return items
    .filter((rs) => rs.metadata.ownerReferences?.some((r) => r.controller && r.uid === d.metadata.uid))
    .sort((a, b) => Number(a.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0) - Number(b.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? 0));
}

/** Pods with label app=<app> that are not being deleted. */
async function podsOf(app: string): Promise<Pod[]> {
  const { items } = await client.list<Pod>(PODS, { labelSelector: `app=${app}` });
  return items.filter((p) => !p.metadata.deletionTimestamp);
}

/** What a node agent would report for a started pod: Running and Ready. */
async function markReady(pod: Pod): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const conditions = ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now }));
  await client.patch(`${PODS}/${pod.metadata.name}/status`, { status: { phase: 'Running', conditions } }, 'merge').catch((e) => {
    if (!isNotFound(e)) throw e;
  });
}

const isReady = (p: Pod) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** Marks every pod of `app` Ready that is not yet: the node agent's part, one round. */
async function readyAll(app: string): Promise<Pod[]> {
  const pods = await podsOf(app);
  for (const p of pods) if (!isReady(p)) await markReady(p);
  return pods;
}

async function eventsOf(name: string, reason: string): Promise<CoreEvent[]> {
  const { items } = await client.list<CoreEvent>(`/api/v1/namespaces/${NS}/events`, { fieldSelector: `involvedObject.name=${name}` });
  return items.filter((e) => e.reason === reason);
}

const eventWith = (name: string, reason: string, message: string) =>
  eventually(async () => (await eventsOf(name, reason)).find((e) => e.message === message), `${reason} event of ${name}: ${message}`);

const condition = (d: Deployment, type: string) => d.status?.conditions?.find((c) => c.type === type);

/** The rollout is done as `kubectl rollout status` judges it, with the suite making new pods Ready meanwhile. */
const rolledOut = (name: string) =>
  eventually(async () => {
    await readyAll(name);
    const d = await getDeployment(name);
    const s = d.status ?? {};
    const want = d.spec?.replicas ?? 1;
    const done = (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) && (s.updatedReplicas ?? 0) === want && (s.replicas ?? 0) === want && (s.availableReplicas ?? 0) === want;
    return done && condition(d, 'Progressing')?.reason === 'NewReplicaSetAvailable' && d;
  }, `deployment ${name} to roll out`);

const kubectl = async (...args: string[]) => (await promisify(execFile)(KUBECTL, ['--kubeconfig', api.kubeconfig, ...args], { encoding: 'utf8' })).stdout;

// ----- the suite ---------------------------------------------------------------------------------------------------

describe('a Deployment', () => {
  test('of 3 creates one ReplicaSet named after its template hash, with 3 pods it controls', async () => {
    const d = await createDeployment('web');
    const [rs] = await eventually(async () => {
      const rss = await replicaSetsOf('web');
      return rss.length === 1 && rss[0].status?.replicas === 3 && rss;
    }, 'one ReplicaSet with 3 pods');
    const hash = rs.metadata.labels?.['pod-template-hash'];
    expect(rs.metadata.name).toBe(`web-${hash}`);
    expect(hash).toMatch(/^[bcdf4-9]{6,10}$/);
    expect(rs.spec?.selector?.matchLabels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs.spec?.template?.metadata?.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs.metadata.annotations).toMatchObject({ 'deployment.kubernetes.io/revision': '1', 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4' });
    expect(rs.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d.metadata.uid, controller: true, blockOwnerDeletion: true }]);

    const pods = await podsOf('web');
    expect(pods).toHaveLength(3);
    for (const p of pods) {
      expect(p.metadata.name).toMatch(new RegExp(`^${rs.metadata.name}-[a-z0-9]{5}$`));
      expect(p.metadata.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
      expect(p.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name, uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    }
    await eventWith('web', 'ScalingReplicaSet', `Scaled up replica set ${rs.metadata.name} from 0 to 3`);
    const created = await eventWith(rs.metadata.name!, 'SuccessfulCreate', `Created pod: ${pods[0].metadata.name}`);
    expect(created).toMatchObject({ type: 'Normal', source: { component: 'replicaset-controller' }, involvedObject: { kind: 'ReplicaSet' } });

    const status = await eventually(async () => {
      const s = (await getDeployment('web')).status;
      return s?.replicas === 3 && (s.observedGeneration ?? 0) >= 1 && s;
    }, 'the deployment status');
    expect(status).toMatchObject({ replicas: 3, updatedReplicas: 3, unavailableReplicas: 3 });
    expect(status.conditions?.find((c) => c.type === 'Available')).toMatchObject({ status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' });
  });

  test('with its pods Ready is available, and kubectl rollout status says it rolled out', async () => {
    const d = await rolledOut('web');
    const [rs] = await replicaSetsOf('web');
    expect(d.status).toMatchObject({ replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
    expect(condition(d, 'Available')).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' });
    expect(condition(d, 'Progressing')).toMatchObject({ status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rs.metadata.name}" has successfully progressed.` });
    expect(rs.status).toMatchObject({ replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });
    expect(d.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('1');
    expect(await kubectl('rollout', 'status', 'deployment/web')).toBe('deployment "web" successfully rolled out\n');
  });

  test('scaled to 5 and down to 2 scales its ReplicaSet, with events', async () => {
    const [rs] = await replicaSetsOf('web');
    await patchDeployment('web', { spec: { replicas: 5 } });
    await eventually(async () => (await readyAll('web')).length === 5 && (await getDeployment('web')).status?.availableReplicas === 5, '5 available pods');
    await eventWith('web', 'ScalingReplicaSet', `Scaled up replica set ${rs.metadata.name} from 3 to 5`);

    await patchDeployment('web', { spec: { replicas: 2 } });
    await eventually(async () => (await podsOf('web')).length === 2, 'two pods left');
    const d = await rolledOut('web');
    expect(d.status).toMatchObject({ replicas: 2, availableReplicas: 2 });
    expect((await replicaSetsOf('web')).map((r) => [r.metadata.name, r.spec?.replicas, r.metadata.annotations?.['deployment.kubernetes.io/desired-replicas']])).toEqual([[rs.metadata.name, 2, '2']]);
    await eventWith('web', 'ScalingReplicaSet', `Scaled down replica set ${rs.metadata.name} from 5 to 2`);
    await eventually(async () => (await eventsOf(rs.metadata.name!, 'SuccessfulDelete')).length === 3, 'three SuccessfulDelete events');
  });

  test('with a new image rolls over to a second ReplicaSet, within maxSurge, until the old one is empty', async () => {
    await patchDeployment('web', { spec: { replicas: 4 } });
    await rolledOut('web');
    const [first] = await replicaSetsOf('web');
    await setImage('web', 'nginx:1.28');
    let most = 0;
    const d = await eventually(async () => {
      const pods = await readyAll('web');
      most = Math.max(most, pods.length);
      const rss = await replicaSetsOf('web');
      const cur = await getDeployment('web');
      const done = rss.length === 2 && rss[0].spec?.replicas === 0 && rss[0].status?.replicas === 0 && condition(cur, 'Progressing')?.reason === 'NewReplicaSetAvailable';
      return done && cur.status?.updatedReplicas === 4 && cur.status.availableReplicas === 4 && cur;
    }, 'the rollout to the new image');
    // 4 replicas, 25% surge: never more than 5 pods.
    expect(most).toBeLessThanOrEqual(5);
    const [old, second] = await replicaSetsOf('web');
    expect(old.metadata.name).toBe(first.metadata.name);
    expect(second.metadata.name).not.toBe(first.metadata.name);
    expect(second.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
    expect(d.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
    expect(condition(d, 'Progressing')?.message).toBe(`ReplicaSet "${second.metadata.name}" has successfully progressed.`);
    for (const p of await podsOf('web')) expect((p.spec as { containers: Array<{ image: string }> }).containers[0].image).toBe('nginx:1.28');
    // No event check here: this Deployment has scaled more than ten times in ten minutes, so the event recorder
    // now combines its ScalingReplicaSet events into one ("(combined from similar events): ..."), as client-go does.
  });

  test('reverted to the first image reuses the first ReplicaSet under a higher revision', async () => {
    const [first, second] = await replicaSetsOf('web');
    await setImage('web', 'nginx:1.27');
    const d = await rolledOut('web');
    const rss = await replicaSetsOf('web');
    expect(rss.map((r) => r.metadata.name)).toEqual([second.metadata.name, first.metadata.name]);
    const reused = rss[1];
    expect(reused.spec?.replicas).toBe(4);
    expect(reused.metadata.annotations).toMatchObject({ 'deployment.kubernetes.io/revision': '3', 'deployment.kubernetes.io/revision-history': '1' });
    expect(rss[0].spec?.replicas).toBe(0);
    expect(d.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
  });

  test('kubectl rollout undo goes back to the previous revision by reusing its ReplicaSet', async () => {
    const [second] = await replicaSetsOf('web');
    expect(await kubectl('rollout', 'undo', 'deployment/web')).toBe('deployment.apps/web rolled back\n');
    await rolledOut('web');
    const rss = await replicaSetsOf('web');
    expect(rss).toHaveLength(2);
    expect(rss[1].metadata.name).toBe(second.metadata.name);
    expect(rss[1].metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('4');
    expect(rss[1].spec?.replicas).toBe(4);
  });

  test('paused keeps its template change from rolling out until resumed', async () => {
    await createDeployment('paused', { replicas: 2 });
    await rolledOut('paused');
    await patchDeployment('paused', { spec: { paused: true } });
    const changed = await setImage('paused', 'nginx:1.28');
    const d = await eventually(async () => {
      const cur = await getDeployment('paused');
      return (cur.status?.observedGeneration ?? 0) >= (changed.metadata.generation ?? 0) && cur;
    }, 'the paused deployment to be observed');
    expect(condition(d, 'Progressing')).toMatchObject({ status: 'Unknown', reason: 'DeploymentPaused', message: 'Deployment is paused' });
    expect(await replicaSetsOf('paused')).toHaveLength(1);

    await patchDeployment('paused', { spec: { paused: false } });
    await rolledOut('paused');
    const rss = await replicaSetsOf('paused');
    expect(rss.map((r) => r.spec?.replicas)).toEqual([0, 2]);
  });

  test('with the Recreate strategy removes every old pod before it creates new ones', async () => {
    await createDeployment('recreate', { replicas: 2, strategy: { type: 'Recreate' } });
    await rolledOut('recreate');
    const [first] = await replicaSetsOf('recreate');
    await setImage('recreate', 'nginx:1.28');
    let overlapped = false;
    await eventually(async () => {
      const pods = await readyAll('recreate');
      const hashes = new Set(pods.map((p) => p.metadata.labels?.['pod-template-hash']));
      if (hashes.size > 1) overlapped = true;
      const rss = await replicaSetsOf('recreate');
      const d = await getDeployment('recreate');
      return rss.length === 2 && condition(d, 'Progressing')?.reason === 'NewReplicaSetAvailable' && d.status?.availableReplicas === 2 && d.status.updatedReplicas === 2 && d.status.replicas === 2;
    }, 'the recreate rollout');
    expect(overlapped).toBe(false);
    const [old, second] = await replicaSetsOf('recreate');
    expect(old.metadata.name).toBe(first.metadata.name);
    expect([old.spec?.replicas, second.spec?.replicas]).toEqual([0, 2]);
    await eventWith('recreate', 'ScalingReplicaSet', `Scaled down replica set ${first.metadata.name} from 2 to 0`);
    await eventWith('recreate', 'ScalingReplicaSet', `Scaled up replica set ${second.metadata.name} from 0 to 2`);
  });

  test('keeps only revisionHistoryLimit old ReplicaSets', async () => {
    await createDeployment('history', { replicas: 1, revisionHistoryLimit: 1 });
    await rolledOut('history');
    for (const image of ['nginx:1.28', 'nginx:1.29', 'nginx:1.30']) {
      await setImage('history', image);
      await rolledOut('history');
    }
    const rss = await eventually(async () => {
      const list = await replicaSetsOf('history');
      return list.length === 2 && list;
    }, 'old ReplicaSets beyond the limit to be deleted');
    expect(rss.map((r) => r.metadata.annotations?.['deployment.kubernetes.io/revision'])).toEqual(['3', '4']);
  });

  test('whose pods never get ready reports ProgressDeadlineExceeded', async () => {
    await createDeployment('stuck', { replicas: 1, progressDeadlineSeconds: 1 });
    const d = await eventually(async () => {
      const cur = await getDeployment('stuck');
      return condition(cur, 'Progressing')?.reason === 'ProgressDeadlineExceeded' && cur;
    }, 'the progress deadline to pass');
    const [rs] = await replicaSetsOf('stuck');
    expect(condition(d, 'Progressing')).toMatchObject({ status: 'False', message: `ReplicaSet "${rs.metadata.name}" has timed out progressing.` });
    await expect(kubectl('rollout', 'status', 'deployment/stuck')).rejects.toMatchObject({ stderr: 'error: deployment "stuck" exceeded its progress deadline\n' });
  });
});

describe('a ReplicaSet', () => {
  function createReplicaSet(name: string, replicas: number): Promise<ReplicaSet> {
    return client.create<ReplicaSet>(REPLICASETS, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name },
      spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } },
    });
  }

  test('adopts an orphan pod its selector matches, and creates only the rest', async () => {
    const orphan = await client.create<Pod>(PODS, { metadata: { name: 'orphan', labels: { app: 'solo' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } });
    await markReady(orphan);
    const rs = await createReplicaSet('solo', 2);
    const adopted = await eventually(async () => {
      const p = await client.get<Pod>(`${PODS}/orphan`);
      return (p.metadata.ownerReferences?.length ?? 0) > 0 && p;
    }, 'the orphan to be adopted');
    expect(adopted.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'solo', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    await eventually(async () => (await client.get<ReplicaSet>(`${REPLICASETS}/solo`)).status?.replicas === 2, 'two pods');
    expect((await podsOf('solo')).map((p) => p.metadata.name)).toContain('orphan');
    expect(await podsOf('solo')).toHaveLength(2);
  });

  test('replaces a pod that is deleted', async () => {
    const before = await podsOf('solo');
    const victim = before.find((p) => p.metadata.name !== 'orphan')!;
    await client.delete(`${PODS}/${victim.metadata.name}`);
    const after = await eventually(async () => {
      const pods = await podsOf('solo');
      return pods.length === 2 && !pods.some((p) => p.metadata.name === victim.metadata.name) && pods;
    }, 'a replacement pod');
    expect(after.map((p) => p.metadata.name)).toContain('orphan');
  });

  test('releases a pod whose labels no longer match, and replaces it', async () => {
    await client.patch(`${PODS}/orphan`, { metadata: { labels: { app: 'gone' } } }, 'strategic');
    const released = await eventually(async () => {
      const p = await client.get<Pod>(`${PODS}/orphan`);
      return !p.metadata.ownerReferences?.length && p;
    }, 'the pod to be released');
    expect(released.metadata.labels).toEqual({ app: 'gone' });
    await eventually(async () => (await podsOf('solo')).length === 2, 'a replacement pod');
  });

  test('with too many pods deletes the ones not ready first', async () => {
    await client.patch(`${REPLICASETS}/solo`, { spec: { replicas: 3 } }, 'merge');
    const three = await eventually(async () => {
      const pods = await podsOf('solo');
      return pods.length === 3 && pods;
    }, 'three pods');
    // Two ready, one not: scaling to 2 must take the one that is not.
    const [notReady, ...rest] = three;
    for (const p of rest) await markReady(p);
    await eventually(async () => (await client.get<ReplicaSet>(`${REPLICASETS}/solo`)).status?.readyReplicas === 2, 'two ready pods');
    await client.patch(`${REPLICASETS}/solo`, { spec: { replicas: 2 } }, 'merge');
    const left = await eventually(async () => {
      const pods = await podsOf('solo');
      return pods.length === 2 && pods;
    }, 'two pods left');
    expect(left.map((p) => p.metadata.name).sort()).toEqual(rest.map((p) => p.metadata.name).sort());
    await eventWith('solo', 'SuccessfulDelete', `Deleted pod: ${notReady.metadata.name}`);
  });
});
