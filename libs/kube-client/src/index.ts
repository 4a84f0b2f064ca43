// @cl/kube-client: a Kubernetes API client for Node services (the node agent, controllers, hollow nodes).
export type { ClientConfig } from './client-config';
export { JSON_MEDIA_TYPE, PROTOBUF_MEDIA_TYPE } from './client-config';
export { RotatingCertificate, type CertificatePair } from './rotating-certificate';
export { loadKubeconfig } from './kubeconfig';
export { ApiError, isNotFound, isConflict, isAlreadyExists, isGone, isInvalid, isResourceExpired, type Status } from './api-error';
export { KubeClient, DEFAULT_USER_AGENT, type ListResult, type PatchType } from './kube-client';
export type { WatchHandle, WatchEventType, WatchEventHandler } from './watch-stream';
export { resourcePath, queryString, type ResourceRef, type Query } from './resource-path';
export { Informer, objectKey, type InformerObject, type InformerOptions, type InformerLog } from './informer';
export { SharedInformers } from './shared-informers';
export { TokenBucket, ClientClosedError, DEFAULT_QPS, DEFAULT_BURST } from './token-bucket';
export { Backoff, REFLECTOR_BACKOFF, type BackoffOptions } from './backoff';
export * from './events';
export { handlersWhile } from './handler-gate';
export { DEFAULT_IDLE_CONNECTION_TIMEOUT_MS } from './transport';
export { DEFAULT_MAX_CONNECTIONS } from './request-slots';
