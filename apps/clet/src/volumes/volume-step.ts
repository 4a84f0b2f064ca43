// The pod's volume step, run before its sandbox starts (upstream's volume manager WaitForAttachAndMount): the
// API-object volumes (secret, configMap, projected, downwardAPI) are written under the pod's directory
// (`<root-dir>/pods/<uid>/volumes/kubernetes.io~secret/<name>`, ...) and rewritten on each pod sync when their
// content changed (so updates reach running containers within the sync period); hostPath and emptyDir stay with
// runtime-spec.ts. A volume kind this agent cannot provide fails the pod's start with a message naming it, never
// silently mounts nothing. The pod's fsGroup owns each volume after every write (ownership.ts); its
// fsGroupChangePolicy does not apply to these kinds (upstream passes none for them). Injectable: hollow nodes use
// `noopVolumeStep`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Container, Pod, Volume } from '../pods/api-types';
import type { ApiObjects } from './api-objects';
import { writeAtomically, type Payload } from './atomic-writer';
import { EMPTY_ENV, resolveEnv, type ResolvedEnv } from './env';
import {
  API_VOLUME_DIRS, DEFAULT_MODE, configMapData, configMapMissingKey, downwardPayload, keysPayload, secretData, secretMissingKey,
  type DownwardApiFile, type KeyToPath,
} from './payloads';
import { volumeOwnerOf, type VolumeOwner } from './ownership';
import { TokenManager } from './token-manager';

/** A volume that could not be set up; the pod waits in ContainerCreating with a FailedMount event. */
export class VolumeSetUpError extends Error {
  constructor(readonly volume: string, readonly detail: string) {
    super(`MountVolume.SetUp failed for volume ${JSON.stringify(volume)} : ${detail}`);
  }
}

export interface PodVolumeStep {
  /** Writes the pod's API-object volumes; the host directory per volume name. Throws VolumeSetUpError. */
  setUp(pod: Pod, podDir: string): Promise<Map<string, string>>;
  /** The container's variables from secrets and config maps; throws with the CreateContainerConfigError message. */
  containerEnv(pod: Pod, c: Container): Promise<ResolvedEnv>;
}

/** Removes a terminated pod's API-object volumes: secrets and tokens do not outlive their pod on disk. */
export function removeApiVolumes(podDir: string): void {
  for (const d of Object.values(API_VOLUME_DIRS)) fs.rmSync(path.join(podDir, 'volumes', d), { recursive: true, force: true });
}

/** Hollow nodes: no files, no API reads, no token requests. */
export const noopVolumeStep: PodVolumeStep = {
  setUp: async () => new Map(),
  containerEnv: async () => EMPTY_ENV,
};

/** Volume kinds runtime-spec.ts provides (host directories). */
const HOST_KINDS = ['hostPath', 'emptyDir'];

/** The volume's kind: its one source field. */
export function volumeKind(v: Volume): string | undefined {
  return Object.keys(v).find((k) => k !== 'name' && v[k] !== undefined && v[k] !== null);
}

interface ObjectSource { name?: string; items?: KeyToPath[]; optional?: boolean; defaultMode?: number }
interface ProjectedSource {
  secret?: ObjectSource;
  configMap?: ObjectSource;
  downwardAPI?: { items?: DownwardApiFile[] };
  serviceAccountToken?: { audience?: string; expirationSeconds?: number; path: string };
  [other: string]: unknown;
}

/** upstream's utilerrors.NewAggregate message. */
const aggregate = (msgs: string[]) => (msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`);

export class ApiVolumeStep implements PodVolumeStep {
  readonly tokens: TokenManager | undefined;

  /** `api` undefined: standalone mode, where only downwardAPI volumes can be provided. */
  constructor(private readonly api: ApiObjects | undefined, tokens?: TokenManager) {
    this.tokens = tokens ?? (api ? new TokenManager(api) : undefined);
  }

  async setUp(pod: Pod, podDir: string): Promise<Map<string, string>> {
    this.tokens?.prune();
    const out = new Map<string, string>();
    const owner = volumeOwnerOf(pod);
    for (const v of pod.spec.volumes ?? []) {
      const kind = volumeKind(v);
      if (!kind || HOST_KINDS.includes(kind)) continue;
      const dirName = API_VOLUME_DIRS[kind];
      if (!dirName) throw new VolumeSetUpError(v.name, `volume type ${JSON.stringify(kind)} is not supported by this node agent (supported: hostPath, emptyDir, secret, configMap, projected, downwardAPI)`);
      let payload: Payload;
      try {
        payload = await this.payload(pod, v, kind, owner);
      } catch (e) {
        throw new VolumeSetUpError(v.name, (e as Error).message);
      }
      const dir = path.join(podDir, 'volumes', dirName, v.name);
      try {
        await writeAtomically(dir, payload, owner);
      } catch (e) {
        throw new VolumeSetUpError(v.name, (e as Error).message);
      }
      out.set(v.name, dir);
    }
    return out;
  }

  containerEnv(pod: Pod, c: Container): Promise<ResolvedEnv> {
    return resolveEnv(this.api, pod, c);
  }

  private need(): ApiObjects {
    if (!this.api) throw new Error('no API server connection (standalone mode): API objects cannot be read');
    return this.api;
  }

  private async payload(pod: Pod, v: Volume, kind: string, owner: VolumeOwner): Promise<Payload> {
    const ns = pod.metadata.namespace ?? 'default';
    if (kind === 'secret') {
      const s = v.secret as ObjectSource & { secretName?: string };
      const name = s.secretName ?? '';
      const obj = await this.need().secret(ns, name);
      if (!obj && !s.optional) throw new Error(`secret ${JSON.stringify(name)} not found`);
      return keysPayload(secretData(obj), s.items, s.defaultMode ?? DEFAULT_MODE, !!s.optional, secretMissingKey);
    }
    if (kind === 'configMap') {
      const c = v.configMap as ObjectSource;
      const name = c.name ?? '';
      const obj = await this.need().configMap(ns, name);
      if (!obj && !c.optional) throw new Error(`configmap ${JSON.stringify(name)} not found`);
      return keysPayload(configMapData(obj), c.items, c.defaultMode ?? DEFAULT_MODE, !!c.optional, configMapMissingKey);
    }
    if (kind === 'downwardAPI') {
      const d = v.downwardAPI as { items?: DownwardApiFile[]; defaultMode?: number };
      return downwardPayload(pod, d.items, d.defaultMode ?? DEFAULT_MODE);
    }
    const p = v.projected as { sources?: ProjectedSource[]; defaultMode?: number };
    const mode = p.defaultMode ?? DEFAULT_MODE;
    const payload: Payload = new Map();
    const errors: string[] = [];
    for (const src of p.sources ?? []) {
      try {
        await this.project(pod, v.name, ns, src, mode, owner, payload);
      } catch (e) {
        errors.push((e as Error).message);
      }
    }
    if (errors.length) throw new Error(aggregate(errors));
    return payload;
  }

  private async project(pod: Pod, volume: string, ns: string, src: ProjectedSource, mode: number, owner: VolumeOwner, payload: Payload): Promise<void> {
    if (src.secret) {
      const obj = await this.need().secret(ns, src.secret.name ?? '');
      if (!obj && !src.secret.optional) throw new Error(`secret ${JSON.stringify(src.secret.name ?? '')} not found`);
      keysPayload(secretData(obj), src.secret.items, mode, !!src.secret.optional, secretMissingKey, payload);
    } else if (src.configMap) {
      const obj = await this.need().configMap(ns, src.configMap.name ?? '');
      if (!obj && !src.configMap.optional) throw new Error(`configmap ${JSON.stringify(src.configMap.name ?? '')} not found`);
      keysPayload(configMapData(obj), src.configMap.items, mode, !!src.configMap.optional, configMapMissingKey, payload);
    } else if (src.downwardAPI) {
      downwardPayload(pod, src.downwardAPI.items, mode, payload);
    } else if (src.serviceAccountToken) {
      const t = src.serviceAccountToken;
      if (!this.tokens) this.need();
      const audiences = t.audience ? [t.audience] : undefined;
      const key = `${pod.metadata.uid}/${volume}/${t.path}/${t.audience ?? ''}`;
      const token = await this.tokens!.token(key, ns, pod.spec.serviceAccountName || 'default', {
        ...(audiences ? { audiences } : {}),
        expirationSeconds: t.expirationSeconds ?? 3600,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' },
      });
      // Upstream's token file: 0600 (0640 once the fsGroup owns it) and owned by the pods' one uid when either is
      // known, so that only that user (or group) reads it; else the volume's defaultMode.
      const owned = owner.fsUser !== undefined || owner.fsGroup !== undefined;
      payload.set(t.path, { data: Buffer.from(token), mode: owned ? 0o600 : mode, ...(owner.fsUser !== undefined ? { fsUser: owner.fsUser } : {}) });
    } else {
      const kind = Object.keys(src)[0] ?? '';
      throw new Error(`projected source ${JSON.stringify(kind)} is not supported by this node agent`);
    }
  }
}
