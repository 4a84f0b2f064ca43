// apps/v1 Deployment and ReplicaSet: workloads that keep a number of pods made from one template. Field numbers
// are those of k8s.io/api apps/v1 generated.proto (core/v1 for PodTemplateSpec); defaults those of
// pkg/apis/apps/v1/defaults.go, and the template's pod spec gets the pod spec defaults pods get.
import type { Static } from '@sinclair/typebox';
import { defineKind } from '../kind';
import { bool, int32, int64, intOrString, labelSelector, mergeList, object, objectMeta, pb, required, str, time, typeMeta, valueStruct } from '../schema';
import { setPodDefaults } from './pod-defaults';
import { doc, podSpec, type Pod } from './pod-v1';

const apps = { group: 'apps', version: 'v1' } as const;

/** core/v1 PodTemplateSpec: the metadata and spec of the pods a workload makes. */
export const podTemplateSpec = object(
  {
    metadata: pb(1, objectMeta),
    spec: valueStruct(pb(2, doc(podSpec, 'Specification of the pods made from this template.'))),
  },
  { description: 'The pods to make: their metadata (labels the selector must match) and spec.' },
);

export type PodTemplateSpec = Static<typeof podTemplateSpec>;

const selector = (what: string) => pb(2, required(doc(labelSelector, `Label query over the pods this ${what} manages; must match the template's labels, cannot change after creation.`)));
const templateOf = doc(podTemplateSpec, 'The pods to make when there are fewer than desired; restartPolicy must be Always.');
const replicas = (what: string) => pb(1, int32(`Number of desired pods of the ${what}; 1 when unset (0 is kept).`));
const minReadySeconds = (n: number) => pb(n, int32('Seconds a new pod must be ready, with no container crashing, before it counts as available; 0 by default.'));

// ---- Deployment ----

const deploymentCondition = object({
  type: pb(1, required(str('Type of the condition: Available, Progressing or ReplicaFailure.'))),
  status: pb(2, required(str('True, False or Unknown.'))),
  lastUpdateTime: pb(6, time('When the condition was last updated.')),
  lastTransitionTime: pb(7, time('When the status last changed.')),
  reason: pb(4, str('CamelCase reason of the last change.')),
  message: pb(5, str('Details of the last change.')),
});

const deploymentStrategy = object(
  {
    type: pb(1, str('Recreate (kill every old pod first) or RollingUpdate (the default: replace them gradually).')),
    rollingUpdate: pb(
      2,
      object(
        {
          maxUnavailable: pb(1, intOrString('How many pods (or what percentage of the desired ones, rounded down) may be unavailable during the update; 25% by default. Cannot be 0 when maxSurge is 0.')),
          maxSurge: pb(2, intOrString('How many pods (or what percentage of the desired ones, rounded up) may exist above the desired number during the update; 25% by default. Cannot be 0 when maxUnavailable is 0.')),
        },
        { description: 'Parameters of a RollingUpdate; only with that type.' },
      ),
    ),
  },
  // `+patchStrategy=retainKeys`: a patch that changes the type drops the rollingUpdate it leaves out.
  { description: 'How old pods are replaced by new ones.', 'x-kubernetes-patch-strategy': 'retainKeys' },
);

const deploymentSchema = object({
  ...typeMeta(),
  metadata: pb(1, objectMeta),
  spec: valueStruct(pb(
    2,
    object(
      {
        replicas: replicas('deployment'),
        selector: selector('deployment'),
        template: valueStruct(pb(3, required(templateOf))),
        strategy: valueStruct(pb(4, deploymentStrategy)),
        minReadySeconds: minReadySeconds(5),
        revisionHistoryLimit: pb(6, int32('How many old ReplicaSets are kept for rollbacks; 10 by default.')),
        paused: pb(7, bool('Whether the rollout is paused: template changes make no new ReplicaSet until it is resumed.')),
        progressDeadlineSeconds: pb(9, int32('Seconds a rollout may go without progress before it is reported as failed (ProgressDeadlineExceeded); 600 by default.')),
      },
      { description: 'Desired state of the deployment.' },
    ),
  )),
  status: valueStruct(pb(
    3,
    object(
      {
        observedGeneration: pb(1, int64('The metadata.generation the deployment controller last acted on.')),
        replicas: pb(2, int32('Pods (not terminating) this deployment targets.')),
        updatedReplicas: pb(3, int32('Of those, pods made from the current template.')),
        readyReplicas: pb(7, int32('Of those, pods with a Ready condition.')),
        availableReplicas: pb(4, int32('Of those, pods ready for at least minReadySeconds.')),
        unavailableReplicas: pb(5, int32('Pods still missing for the deployment to be fully available.')),
        conditions: pb(6, mergeList(deploymentCondition, 'type', 'Latest observations of the state of the deployment.')),
        collisionCount: pb(8, int32('Hash collisions met when naming the newest ReplicaSet; part of its name hash.')),
      },
      { description: 'Observed state of the deployment, written by the deployment controller.' },
    ),
  )),
});

export type Deployment = Static<typeof deploymentSchema>;

// ---- ReplicaSet ----

const replicaSetCondition = object({
  type: pb(1, required(str('Type of the condition (ReplicaFailure).'))),
  status: pb(2, required(str('True, False or Unknown.'))),
  lastTransitionTime: pb(3, time('When the status last changed.')),
  reason: pb(4, str('CamelCase reason of the last change.')),
  message: pb(5, str('Details of the last change.')),
});

const replicaSetSchema = object({
  ...typeMeta(),
  metadata: pb(1, objectMeta),
  spec: valueStruct(pb(
    2,
    object(
      {
        replicas: replicas('replica set'),
        minReadySeconds: minReadySeconds(4),
        selector: selector('replica set'),
        template: valueStruct(pb(3, templateOf)),
      },
      { description: 'Desired state of the replica set.' },
    ),
  )),
  status: valueStruct(pb(
    3,
    object(
      {
        replicas: pb(1, int32('Pods (not terminating) of this replica set.')),
        fullyLabeledReplicas: pb(2, int32('Of those, pods with every label of the template.')),
        readyReplicas: pb(4, int32('Of those, pods with a Ready condition.')),
        availableReplicas: pb(5, int32('Of those, pods ready for at least minReadySeconds.')),
        observedGeneration: pb(3, int64('The metadata.generation the replica set controller last acted on.')),
        conditions: pb(6, mergeList(replicaSetCondition, 'type', 'Latest observations of the state of the replica set.')),
      },
      { description: 'Observed state of the replica set, written by the replica set controller.' },
    ),
  )),
});

export type ReplicaSet = Static<typeof replicaSetSchema>;

// ---- defaults ----

const unset = (v: unknown) => v === undefined || v === null;

/**
 * The pod spec defaults of a template (the generated SetObjectDefaults_Deployment / _ReplicaSet): those of
 * SetDefaults_PodSpec and of its containers and volumes. setPodDefaults also applies SetDefaults_Pod (requests
 * copied from limits, enableServiceLinks, host-network ports), which upstream gives pods only, never templates;
 * what those read is hidden from it for the call and put back in place after (so fields keep their order).
 */
export function setPodTemplateDefaults(template: PodTemplateSpec): void {
  // Go writes the zero creationTimestamp of a template's ObjectMeta as null (`kubectl get deploy -o yaml` shows it).
  const meta = (template.metadata ??= {});
  if (meta.creationTimestamp === undefined) meta.creationTimestamp = null;
  const spec = (template.spec ??= {});
  const containers = [...(spec.containers ?? []), ...(spec.initContainers ?? [])].filter((c) => !unset(c));
  const resources = containers.map((c) => c.resources);
  const { enableServiceLinks, hostNetwork } = spec;
  for (const c of containers) if (c.resources !== undefined) c.resources = undefined;
  if (unset(enableServiceLinks)) spec.enableServiceLinks = false;
  if (hostNetwork) spec.hostNetwork = false;
  setPodDefaults({ spec } as Pod);
  containers.forEach((c, i) => {
    if (resources[i] !== undefined) c.resources = resources[i];
  });
  if (enableServiceLinks === undefined) delete spec.enableServiceLinks;
  else spec.enableServiceLinks = enableServiceLinks;
  if (hostNetwork) spec.hostNetwork = hostNetwork;
}

/** SetDefaults_Deployment: one replica, a RollingUpdate of 25% / 25%, 10 old ReplicaSets kept, 600 s to progress. */
function setDeploymentDefaults(d: Deployment): void {
  // Spec, strategy and template are structs in Go: present even when a client leaves them out.
  const spec = (d.spec ??= {});
  if (unset(spec.replicas)) spec.replicas = 1;
  const strategy = (spec.strategy ??= {});
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rolling = (strategy.rollingUpdate ??= {});
    if (unset(rolling.maxUnavailable)) rolling.maxUnavailable = '25%';
    if (unset(rolling.maxSurge)) rolling.maxSurge = '25%';
  }
  if (unset(spec.revisionHistoryLimit)) spec.revisionHistoryLimit = 10;
  if (unset(spec.progressDeadlineSeconds)) spec.progressDeadlineSeconds = 600;
  setPodTemplateDefaults((spec.template ??= {}));
}

/** SetDefaults_ReplicaSet: one replica. */
function setReplicaSetDefaults(rs: ReplicaSet): void {
  const spec = (rs.spec ??= {});
  if (unset(spec.replicas)) spec.replicas = 1;
  setPodTemplateDefaults((spec.template ??= {}));
}

export const deployment = defineKind({
  ...apps,
  kind: 'Deployment',
  plural: 'deployments',
  namespaced: true,
  shortNames: ['deploy'],
  categories: ['all'],
  subresources: ['status', 'scale'],
  description: 'Declarative updates of pods: a deployment rolls its template out through ReplicaSets, one per template revision.',
  schema: deploymentSchema,
  setDefaults: setDeploymentDefaults,
});

export const replicaSet = defineKind({
  ...apps,
  kind: 'ReplicaSet',
  plural: 'replicasets',
  namespaced: true,
  shortNames: ['rs'],
  categories: ['all'],
  subresources: ['status', 'scale'],
  description: 'Keeps a number of pods made from one template running.',
  schema: replicaSetSchema,
  setDefaults: setReplicaSetDefaults,
});
