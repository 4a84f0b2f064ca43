// Every kind this server serves, in discovery order.
import type { KindDefinition } from '../kind';
import { lease } from './coordination-v1';
import { configMap, event, namespace, secret, serviceAccount } from './core-v1';
import { clusterRole, clusterRoleBinding, role, roleBinding } from './rbac-v1';
import { eventV1 } from './events-v1';
import { pod } from './pod-v1';
import { node } from './node-v1';
import { priorityClass } from './scheduling-v1';
import { limitRange, resourceQuota } from './quota-v1';
import { deployment, replicaSet } from './apps-v1';

export const ALL_KINDS: KindDefinition[] = [namespace, node, pod, configMap, secret, serviceAccount, limitRange, resourceQuota, event, deployment, replicaSet, lease, eventV1, priorityClass, role, clusterRole, roleBinding, clusterRoleBinding];
