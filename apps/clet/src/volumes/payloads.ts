// What each API-object volume holds (upstream's MakePayload of the secret, configMap, downwardAPI and projected
// volume plugins): all keys of the object or the listed items, with the item's mode or the volume's defaultMode.
import type { Pod } from '../pods/api-types';
import type { ConfigMap, Secret } from './api-objects';
import type { Payload } from './atomic-writer';

export const DEFAULT_MODE = 0o644;

export interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

export interface DownwardApiFile {
  path: string;
  fieldRef?: { fieldPath: string; apiVersion?: string };
  resourceFieldRef?: unknown;
  mode?: number;
}

/** Which volume kinds the agent materializes itself, and their directory under the pod's volumes dir. */
export const API_VOLUME_DIRS: Record<string, string> = {
  secret: 'kubernetes.io~secret',
  configMap: 'kubernetes.io~configmap',
  projected: 'kubernetes.io~projected',
  downwardAPI: 'kubernetes.io~downward-api',
};

export const secretData = (s: Secret | undefined): Map<string, Buffer> =>
  new Map(Object.entries(s?.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]));

export const configMapData = (c: ConfigMap | undefined): Map<string, Buffer> =>
  new Map([
    ...Object.entries(c?.data ?? {}).map(([k, v]): [string, Buffer] => [k, Buffer.from(v, 'utf8')]),
    ...Object.entries(c?.binaryData ?? {}).map(([k, v]): [string, Buffer] => [k, Buffer.from(v, 'base64')]),
  ]);

/**
 * The payload of one object: every key, or the items (a missing key is an error unless optional).
 * `missingKey` words the error as the plugin does.
 */
export function keysPayload(data: Map<string, Buffer>, items: KeyToPath[] | undefined, defaultMode: number, optional: boolean,
  missingKey: (key: string) => string, into: Payload = new Map()): Payload {
  if (!items || items.length === 0) {
    for (const [k, v] of data) into.set(k, { data: v, mode: defaultMode });
    return into;
  }
  for (const item of items) {
    const v = data.get(item.key);
    if (v === undefined) {
      if (optional) continue;
      throw new Error(missingKey(item.key));
    }
    into.set(item.path, { data: v, mode: item.mode ?? defaultMode });
  }
  return into;
}

export const secretMissingKey = (key: string) => `references non-existent secret key: ${key}`;
export const configMapMissingKey = (key: string) => `configmap references non-existent config key: ${key}`;

/** Upstream's FormatMap: `key="value"` lines in key order, Go-quoted values. */
export function formatMap(m: Record<string, string> | undefined): string {
  return Object.keys(m ?? {}).sort().map((k) => `${k}=${JSON.stringify(m![k])}`).join('\n');
}

/** The field paths a downwardAPI volume may name (fieldRef), as upstream's ExtractFieldPathAsString for volumes. */
export function downwardFieldValue(pod: Pod, fieldPath: string): string {
  const m = pod.metadata;
  switch (fieldPath) {
    case 'metadata.name': return m.name ?? '';
    case 'metadata.namespace': return m.namespace ?? '';
    case 'metadata.uid': return m.uid ?? '';
    case 'metadata.labels': return formatMap(m.labels);
    case 'metadata.annotations': return formatMap(m.annotations);
    default: {
      const sub = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
      if (sub) return (sub[1] === 'labels' ? m.labels : m.annotations)?.[sub[2]] ?? '';
      throw new Error(`unsupported fieldPath: ${fieldPath}`);
    }
  }
}

export function downwardPayload(pod: Pod, items: DownwardApiFile[] | undefined, defaultMode: number, into: Payload = new Map()): Payload {
  for (const item of items ?? []) {
    if (item.resourceFieldRef) throw new Error(`downwardAPI item ${JSON.stringify(item.path)}: resourceFieldRef is not supported by this node agent`);
    if (!item.fieldRef) continue;
    into.set(item.path, { data: Buffer.from(downwardFieldValue(pod, item.fieldRef.fieldPath)), mode: item.mode ?? defaultMode });
  }
  return into;
}
