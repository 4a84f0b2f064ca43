// Well-known names of core/v1 (k8s.io/api/core/v1 well_known_taints.go and types.go) that more than one of the
// node controllers uses.

export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
export const TAINT_MEMORY_PRESSURE = 'node.kubernetes.io/memory-pressure';
export const TAINT_DISK_PRESSURE = 'node.kubernetes.io/disk-pressure';
export const TAINT_NETWORK_UNAVAILABLE = 'node.kubernetes.io/network-unavailable';
export const TAINT_PID_PRESSURE = 'node.kubernetes.io/pid-pressure';
/** Put on a node by an administrator who knows it is down for good: pod GC may then force-delete its terminating pods. */
export const TAINT_OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';

/** Where node agents keep their heartbeat leases, one named after each node. */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

export const NODES_PATH = '/api/v1/nodes';
export const PODS_PATH = '/api/v1/pods';
export const LEASES_PATH = '/apis/coordination.k8s.io/v1/leases';
export const NAMESPACES_PATH = '/api/v1/namespaces';
export const CONFIGMAPS_PATH = '/api/v1/configmaps';
