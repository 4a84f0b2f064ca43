// The node agent's API-object volumes and environment (secret, configMap, projected, downwardAPI; envFrom and
// key references), written atomically under the pod directory.
export { ApiVolumeStep, VolumeSetUpError, noopVolumeStep, removeApiVolumes, volumeKind, type PodVolumeStep } from './volume-step';
export { clientApiObjects, type ApiObjects, type ObjectClient } from './api-objects';
export {
  objectManagerFor, podObjectKeys, ttlFromNode, DEFAULT_OBJECT_TTL_MS, NODE_TTL_ANNOTATION, WATCH_SYNC_WAIT_MS,
  type ChangeDetectionStrategy, type PodObjectManager, type ObjectManagerOptions, type ObjectRef,
} from './object-managers';
export { EMPTY_ENV, type ResolvedEnv } from './env';
export { TokenManager, requiresRefresh } from './token-manager';
export { writeAtomically, DATA_DIR, type Payload } from './atomic-writer';
export { setVolumeOwnership, volumeOwnerOf, fsUserOf, type VolumeOwner, type FsGroupChangePolicy } from './ownership';
